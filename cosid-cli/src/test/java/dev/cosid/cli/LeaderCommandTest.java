package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.kafka.KafkaBroker;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Two ./cosid leader processes on a real broker: one holds, one waits, and it takes over after a kill. */
class LeaderCommandTest {

    private static final Clock CLOCK = Clock.system();
    private static final long LEASE = 6_000;
    private static final long STAGGER = 2_000;
    private static final long RETRY = 500;
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }

    @TempDir
    Path dir;

    private Process leader(String member) throws IOException {
        return new ProcessBuilder(ChildJvm.command(CosIdCommand.class.getName(),
                "leader", "--bootstrap", bootstrap(), "--role", "controller", "--member", member,
                "--lease", LEASE + "ms", "--renew", "2s", "--stagger", STAGGER + "ms", "--retry", RETRY + "ms"))
                .redirectOutput(dir.resolve(member + ".out").toFile())
                .redirectError(dir.resolve(member + ".err").toFile())
                .start();
    }

    private String output(String member) throws IOException {
        Path out = dir.resolve(member + ".out");
        return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
    }

    private void await(String member, String fragment, long seconds) throws IOException {
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(seconds);
        while (!output(member).contains(fragment)) {
            assertTrue(CLOCK.monotonicNanos() < deadline, member + " never printed '" + fragment + "': "
                    + output(member) + Files.readString(dir.resolve(member + ".err")));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Test
    void oneHoldsOneWaitsAndTheWaitingOneTakesOverAfterTheHolderIsKilled() throws Exception {
        Process first = leader("node-1");
        await("node-1", "holding role controller", 60);
        Process second = leader("node-2");
        try {
            await("node-2", "waiting until", 60);
            await("node-1", "renewed role controller", 30);
            first.destroyForcibly();
            long killed = CLOCK.monotonicNanos();
            assertTrue(first.waitFor(10, TimeUnit.SECONDS));
            await("node-2", "holding role controller", 60);
            long takeoverMillis = (CLOCK.monotonicNanos() - killed) / 1_000_000;
            long bound = LEASE + STAGGER + RETRY;
            System.out.println("failover took " + takeoverMillis + " ms; bound lease + stagger + retry = " + bound + " ms");
            assertTrue(takeoverMillis <= bound, "takeover took " + takeoverMillis + " ms, more than " + bound + " ms");
            assertTrue(output("node-1").contains("registered node-1"));

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int status = CosIdCommand.run(new String[] {"roles", "--bootstrap", bootstrap()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
            assertEquals(0, status);
            String roles = out.toString(StandardCharsets.UTF_8);
            assertTrue(roles.contains("role controller holder node-2") && roles.contains("(current)"), roles);
            assertTrue(roles.contains("roster [node-1 (standby, rank 0), node-2 (holder)]"),
                    "killed, node-1 cannot leave; while node-2 renews it waits its turn as far as anyone can tell: "
                    + roles);
            List<String> lines = Files.readAllLines(dir.resolve("node-2.out"));
            assertTrue(lines.stream().anyMatch(line -> line.contains("with token")), lines.toString());
        } finally {
            first.destroyForcibly();
            second.destroyForcibly();
        }
    }
}
