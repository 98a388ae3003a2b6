package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command line cut off with its synchronous PostgreSQL primary: {@code ./cosid generate --duration D} runs
 * on side A with the primary, a {@link PartitionClient} on side B with the standby, which is promoted once the
 * sides are cut. The run stops issuing at its last confirmed ceiling, ends within 2 s of its duration although
 * its store calls find no standby to confirm them, and leaves no backend of the old primary waiting for one.
 * D is 40 s. It runs in the long run only ({@code -Dcosid.partition.long=true}, whose profile adds the command
 * line to the classpath: in the test command this module must not wait for the command line's module to build).
 * The test command keeps the command line's part of it: {@code GenerateDurationProcessTest} in {@code cosid-cli}.
 */
class GeneratePartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");
    private static final Duration DURATION = Duration.ofSeconds(40);
    private static final Clock WALL = Clock.system();

    @Test
    void generateCutOffWithItsSynchronousPrimaryEndsOnTimeAtItsCeilingAndLeavesNoBackendWaiting() {
        try {
            Class.forName("dev.cosid.cli.CosIdCommand");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the command line is not on the classpath: run this test with "
                    + "-Dcosid.partition.long=true, whose profile adds it", e);
        }
        Path dir = RUNS.resolve("generate-postgres-synchronous");
        try (NetworkPartition net = NetworkPartition.created();
                PostgresSetup postgres = PostgresSetup.started(net, true)) {
            PartitionRun run = new PartitionRun(net, dir);
            String url = postgres.url("");
            Path ids = dir.resolve("generate.ids");
            Path log = dir.resolve("generate.log");
            Files.deleteIfExists(ids);
            Files.deleteIfExists(log);
            long launched = WALL.monotonicNanos();
            Process generate = net.start(net.a(), ChildJvm.command(List.of("-Xmx128m"), "dev.cosid.cli.CosIdCommand",
                    List.of("generate", "--store", url, "--namespace", PartitionClient.NAMESPACE,
                    "--duration", DURATION.toSeconds() + "s", "--rate", Long.toString(PartitionRun.RATE), "--bits", "0",
                    "--ttl", PartitionClient.TTL.toMillis() + "ms", "--tolerance",
                    PartitionClient.TOLERANCE.toMillis() + "ms", "--takeover-guard", "--cold-start-guard",
                    "--owner-key", "generate")), ids, log);
            // its duration starts as it prints its first line, the notice about multi-host URLs
            Await.until(() -> log.toFile().length() > 0 || !generate.isAlive(), Duration.ofSeconds(60),
                    "the first line of generate; see " + log);
            long begun = WALL.monotonicNanos();
            Await.until(() -> ids.toFile().length() > 100 * 20 || !generate.isAlive(), Duration.ofSeconds(60),
                    "generate issuing ids; see " + log);
            assertTrue(generate.isAlive(), "generate ended early: " + read(log));
            PartitionRun.Client b = run.start("b", net.b(), url);
            run.awaitWaiting(b, Duration.ofSeconds(60));
            run.cut();
            postgres.promote();
            // a run still alive just past its duration dumps its threads into its output, to show what holds it
            long untilClose = DURATION.toMillis() + 800 - TimeUnit.NANOSECONDS.toMillis(WALL.monotonicNanos() - begun);
            if (!generate.waitFor(untilClose, TimeUnit.MILLISECONDS)) {
                new ProcessBuilder("kill", "-3", Long.toString(generate.pid())).start().waitFor();
            }
            boolean ended = generate.waitFor(DURATION.toMillis() + 30_000, TimeUnit.MILLISECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(WALL.monotonicNanos() - begun);
            long launchedMillis = TimeUnit.NANOSECONDS.toMillis(WALL.monotonicNanos() - launched);
            run.awaitIssuing(b, Duration.ofSeconds(60));
            PartitionRun.Result result = run.stop();
            String err = read(log);
            long[] printed = read(ids).lines().filter(line -> line.matches("[0-9]+")).mapToLong(Long::parseLong).toArray();
            long ceiling = result.cutsDone().get(0) + PartitionClient.TTL.plus(PartitionClient.TOLERANCE).toMillis();
            long pastCeiling = Arrays.stream(printed)
                    .filter(id -> IdLayout.MILLISECOND.parse(id).timestampMillis() > ceiling).count();
            long repeats = PartitionRun.repeats(printed, result.of("b").ids());
            int waiting = postgres.waitingOnSyncRep();
            String figures = "generate --duration " + DURATION.toSeconds() + "s: ended " + tookMillis + " ms after "
                    + "its first line (" + launchedMillis + " ms after the process was launched), exit "
                    + (ended ? generate.exitValue() : "none") + ", " + printed.length + " ids, " + pastCeiling
                    + " past its confirmed ceiling, repeated with b " + repeats + ", backends waiting on the "
                    + "standby " + waiting + "; " + result;
            PartitionRun.record(figures);
            assertTrue(ended && tookMillis <= DURATION.toMillis() + 2_000, figures + "\n" + err);
            assertEquals(0, generate.exitValue(), err);
            assertTrue(printed.length > 0, figures);
            assertEquals(0, pastCeiling, "generate stops at its confirmed ceiling: " + figures);
            assertEquals(0, repeats, figures);
            assertTrue(result.of("b").after(result.cut()) > 0, "b issues after the promotion: " + figures);
            Await.until(() -> postgres.waitingOnSyncRep() == 0, Duration.ofSeconds(5),
                    () -> "no backend of the old primary left waiting on the cut-off standby: "
                            + postgres.waitingOnSyncRep() + " wait; " + figures);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
