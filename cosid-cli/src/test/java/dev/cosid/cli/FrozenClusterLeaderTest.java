package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.KafkaCluster;
import dev.cosid.testkit.servers.ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cosid leader} against a Kafka node that freezes (SIGSTOP) past the lease: the holder cannot renew,
 * and it prints {@code revoked ... renewals failing} and stops its command before its lease's deadline, by its
 * own clock, rather than holding on silently while its renewal waits on the frozen cluster.
 */
class FrozenClusterLeaderTest {

    @RegisterExtension
    static final ServerExtension<KafkaCluster> KAFKA = new ServerExtension<>(() -> KafkaCluster.started(1));

    @TempDir
    Path dir;

    private String read(String file) {
        try {
            Path path = dir.resolve(file);
            return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** The instant a printed line begins with. */
    private static Instant at(String line) {
        return Instant.parse(line.substring(0, line.indexOf(' ')));
    }

    /** The deadline named by a holding or renewed line: "... until 2026-12-06T01:02:03.456Z". */
    private static Instant until(String line) {
        int from = line.indexOf(" until ") + " until ".length();
        int to = line.indexOf(' ', from);
        return Instant.parse(to < 0 ? line.substring(from) : line.substring(from, to));
    }

    @Test
    void theHolderPrintsRevokedAndStopsItsCommandBeforeItsDeadlineWhenTheClusterFreezes() throws Exception {
        Process leader = new ProcessBuilder(ChildJvm.command(CosIdCommand.class.getName(), "leader",
                "--bootstrap", KAFKA.server().bootstrapServers(), "--role", "frozen", "--member", "node-1",
                "--lease", "6s", "--renew", "2s", "--stagger", "1s", "--retry", "200ms", "--timeout", "20s",
                "--exec", "trap 'echo term >> " + dir.resolve("terms") + "; exit 0' TERM; while :; do sleep 0.1; done"))
                .redirectOutput(dir.resolve("out").toFile())
                .redirectError(dir.resolve("err").toFile())
                .start();
        int node = KAFKA.server().nodeIds().get(0);
        try {
            Await.until(() -> read("out").contains("renewed role frozen"), Duration.ofSeconds(60),
                    () -> "a renewal: " + read("out") + read("err"));
            KAFKA.server().pause(node); // the whole cluster: nothing answers, connections stay open
            Await.until(() -> read("out").contains("revoked role frozen"), Duration.ofSeconds(30),
                    () -> "a revoked line: " + read("out") + read("err"));
            List<String> lines = read("out").lines().toList();
            String revoked = lines.stream().filter(l -> l.contains("revoked role frozen")).findFirst().orElseThrow();
            assertTrue(revoked.contains("renewals failing"), revoked);
            String lastLease = lines.stream().takeWhile(l -> !l.equals(revoked))
                    .filter(l -> l.contains("holding role frozen") || l.contains("renewed role frozen"))
                    .reduce((a, b) -> b).orElseThrow();
            Instant deadline = until(lastLease);
            assertTrue(at(revoked).isBefore(deadline), "revoked at " + at(revoked) + ", deadline " + deadline);
            Await.until(() -> read("out").contains("stopped command"), Duration.ofSeconds(10),
                    () -> "the command stopped: " + read("out"));
            String stopped = read("out").lines().filter(l -> l.contains("stopped command")).findFirst().orElseThrow();
            assertTrue(at(stopped).isBefore(deadline), "the command stopped at " + at(stopped) + ", deadline "
                    + deadline);
            assertTrue(read("terms").contains("term"), "the command got SIGTERM: " + read("out"));
        } finally {
            KAFKA.server().resume(node);
            leader.destroy();
            if (!leader.waitFor(30, TimeUnit.SECONDS)) {
                leader.destroyForcibly();
            }
        }
    }
}
