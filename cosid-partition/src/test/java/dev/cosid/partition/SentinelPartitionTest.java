package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.NetworkPartition;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Redis behind Sentinel under a real partition: the primary and client A on side A, two replicas, the three
 * sentinels and client B on side B, both clients on one slot with both guards. With confirmed writes
 * ({@code waitReplicas=1}) A's renewals fail once it is cut off, A stops at its confirmed ceiling and B takes
 * the slot over on the promoted replica: no id twice. The asynchronous mode, under its unsafe name, is the
 * negative control: A keeps renewing on the old primary, which still takes its writes, and both issue.
 */
class SentinelPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");

    @Test
    void confirmedWritesRepeatNoIdAndTheOtherSideTakesOver() {
        PartitionRun.rounds("sentinel-confirmed", round -> {
            PartitionRun.Result result = run("sentinel-confirmed-" + round, "waitReplicas=1");
            assertEquals(0, result.repeats(), result.toString());
            assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the failover: " + result);
            assertEquals(0, result.pastCeiling("a"), "A stops at its confirmed ceiling: " + result);
            return result;
        });
    }

    @Test
    void theAsynchronousModeUnderItsUnsafeNameRepeatsIds() {
        PartitionRun.rounds("sentinel-async-unsafe", round -> {
            PartitionRun.Result result = run("sentinel-async-unsafe-" + round,
                    "waitReplicas=0&allowRepeatedIdsOnPartition=true");
            assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the failover: " + result);
            assertTrue(result.pastCeiling("a") > 0, "A keeps issuing on the old primary: " + result);
            assertTrue(result.repeats() > 0, "the negative control repeats ids: " + result);
            return result;
        });
    }

    private static PartitionRun.Result run(String name, String options) {
        try (NetworkPartition net = NetworkPartition.created(); SentinelSetup redis = SentinelSetup.started(net)) {
            PartitionRun run = new PartitionRun(net, RUNS.resolve(name));
            String url = redis.url(options);
            PartitionRun.Client a = run.start("a", net.a(), url);
            run.awaitIssuing(a, Duration.ofSeconds(60));
            PartitionRun.Client b = run.start("b", net.b(), url);
            run.awaitWaiting(b, Duration.ofSeconds(60));
            run.cut();
            redis.awaitFailover(Duration.ofSeconds(30));
            run.awaitIssuing(b, Duration.ofSeconds(30));
            PartitionRun.Result result = run.finish();
            System.out.println(name + ": " + result);
            return result;
        }
    }
}
