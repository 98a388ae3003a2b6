package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.kafka.KafkaBroker;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cosid leader --exec CMD} on a real broker: the command runs while the member leads, with the token in
 * its environment; it never outlives the leader process, even one killed with SIGKILL; a command that exits by
 * itself ends the leader with its status; and a standby runs the command once it takes over.
 */
class LeaderExecTest {

    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    @TempDir
    Path dir;

    private Process leader(String role, String member, String command, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("leader", "--bootstrap", BROKER.server().bootstrapServers(),
                "--role", role, "--member", member, "--lease", "3s", "--renew", "1s", "--stagger", "500ms",
                "--retry", "200ms", "--exec", command));
        args.addAll(List.of(more));
        return new ProcessBuilder(ChildJvm.command(CosIdCommand.class.getName(), args.toArray(String[]::new)))
                .redirectOutput(dir.resolve(member + ".out").toFile())
                .redirectError(dir.resolve(member + ".err").toFile())
                .start();
    }

    private String read(String file) {
        try {
            Path path = dir.resolve(file);
            return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static String role() {
        return "exec-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void theCommandGetsTheTokenAndDiesWithALeaderKilledBySigkill() throws Exception {
        // the command and a child of its own: both must go
        String command = "echo $COSID_LEADER_TOKEN $COSID_LEADER_ROLE $COSID_LEADER_MEMBER > " + dir.resolve("env")
                + "; sleep 600 & echo $! > " + dir.resolve("child") + "; echo $$ > " + dir.resolve("pid") + "; wait";
        String role = role();
        Process leader = leader(role, "node-1", command);
        try {
            // the leader prints its line after it started the command, which may write its files before that
            Await.until(() -> !read("child").isBlank() && !read("pid").isBlank()
                    && read("node-1.out").contains("started command"), Duration.ofSeconds(60),
                    () -> "the command started: " + read("node-1.out") + read("node-1.err"));
            String holding = read("node-1.out").lines().filter(l -> l.contains("started command")).findFirst()
                    .orElseThrow();
            String token = holding.substring(holding.indexOf("with token ") + "with token ".length()).strip();
            assertEquals(token + " " + role + " node-1", read("env").strip());
            long pid = Long.parseLong(read("pid").strip());
            long child = Long.parseLong(read("child").strip());
            assertTrue(alive(pid) && alive(child));
            leader.destroyForcibly(); // SIGKILL: no shutdown hook runs
            assertTrue(leader.waitFor(10, TimeUnit.SECONDS));
            Await.until(() -> !alive(pid) && !alive(child), Duration.ofSeconds(5),
                    "the command and its child outlived the leader");
        } finally {
            leader.destroyForcibly();
        }
    }

    @Test
    void aCommandThatExitsByItselfEndsTheLeaderWithItsStatusAndTheRoleIsGivenBack() throws Exception {
        String role = role();
        Process leader = leader(role, "node-1", "exit 3");
        assertTrue(leader.waitFor(60, TimeUnit.SECONDS), read("node-1.out") + read("node-1.err"));
        assertEquals(3, leader.exitValue(), read("node-1.err"));
        String out = read("node-1.out");
        assertTrue(out.contains("command exited with status 3"), out);
        assertTrue(out.contains("resigned role " + role), out);
        assertTrue(out.contains("left role " + role + ": registration of node-1 removed"), out);
        Cli roles = Cli.run("roles", "--bootstrap", BROKER.server().bootstrapServers());
        assertTrue(roles.out().contains("role " + role + " holder - token - (no lease) deadline - roster []"),
                roles.out());
    }

    @Test
    void aStoppedLeaderStopsItsCommandWithSigtermAndTheStandbyRunsItsOwn() throws Exception {
        String role = role();
        String command = "trap 'echo $COSID_LEADER_MEMBER >> " + dir.resolve("terms") + "; exit 0' TERM; echo "
                + "$COSID_LEADER_MEMBER >> " + dir.resolve("starts") + "; while :; do sleep 0.1; done";
        Process first = leader(role, "node-1", command);
        Process second = null;
        try {
            Await.until(() -> read("starts").contains("node-1"), Duration.ofSeconds(60), "node-1 runs the command");
            second = leader(role, "node-2", command);
            Process standby = second;
            Await.until(() -> read("node-2.out").contains("waiting until"), Duration.ofSeconds(60), "node-2 waits");
            assertEquals("node-1\n", read("starts"), "the standby runs nothing while it waits");
            first.destroy(); // SIGTERM: the leader stops its command, resigns and leaves
            assertTrue(first.waitFor(30, TimeUnit.SECONDS));
            assertEquals("node-1\n", read("terms"));
            assertTrue(read("node-1.out").contains("stopped command with SIGTERM"), read("node-1.out"));
            Await.until(() -> read("starts").contains("node-2"), Duration.ofSeconds(30), "node-2 took over");
            standby.destroy();
            assertTrue(standby.waitFor(30, TimeUnit.SECONDS));
            assertEquals("node-1\nnode-2\n", read("terms"));
        } finally {
            first.destroyForcibly();
            if (second != null) {
                second.destroyForcibly();
            }
        }
    }

    @Test
    void aGraceThatOutlastsTheMarginOrAGraceWithoutACommandIsAUsageError() {
        Cli long_ = Cli.run("leader", "--bootstrap", "localhost:9", "--role", "r", "--member", "m", "--lease", "3s",
                "--renew", "1s", "--exec", "true", "--grace", "1s");
        assertEquals(2, long_.status(), long_.err());
        assertTrue(long_.err().contains("--grace 1000 ms is not shorter than the margin of 300 ms: the command would "
                + "outlive the leadership"), long_.err());
        Cli alone = Cli.run("leader", "--bootstrap", "localhost:9", "--role", "r", "--member", "m", "--grace", "1s");
        assertEquals(2, alone.status(), alone.err());
        assertTrue(alone.err().contains("--grace needs --exec"), alone.err());
        Cli margin = Cli.run("leader", "--bootstrap", "localhost:9", "--role", "r", "--member", "m", "--lease", "3s",
                "--renew", "1s", "--margin", "2s");
        assertEquals(2, margin.status(), margin.err());
        assertTrue(margin.err().contains("the revoke margin of 2000 ms is not between 1 ms and the lease duration "
                + "minus the renew interval (2000 ms)"), margin.err());
    }
}
