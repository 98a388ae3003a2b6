package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.NetworkPartition;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Redis Cluster under a real partition: the primary that serves the namespace and client A cut off on side A,
 * the rest of the cluster (its replica among it) and client B on side B, both clients on one slot with both
 * guards. The minority primary stops taking writes within the node timeout (one second), so A's ceiling cannot
 * move past the cut by more than that; B takes the slot over on the promoted replica with the takeover guard,
 * which waits out a lease and the tolerance on top of what the promoted replica knew: no id twice.
 */
class RedisClusterPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");

    @Test
    void theMinorityPrimaryStopsWritesAndTheTakeoverGuardRepeatsNoId() {
        PartitionRun.rounds("redis-cluster", round -> {
            try (NetworkPartition net = NetworkPartition.created();
                    ClusterSetup cluster = ClusterSetup.started(net, PartitionClient.NAMESPACE)) {
                PartitionRun run = new PartitionRun(net, RUNS.resolve("redis-cluster-" + round));
                PartitionRun.Client a = run.start("a", net.a(), cluster.url());
                run.awaitIssuing(a, Duration.ofSeconds(60));
                PartitionRun.Client b = run.start("b", net.b(), cluster.url());
                run.awaitWaiting(b, Duration.ofSeconds(60));
                run.cut();
                cluster.awaitFailover(Duration.ofSeconds(30));
                try {
                    run.awaitIssuing(b, Duration.ofSeconds(30));
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; the cluster as side B sees it: " + cluster.view(), e);
                }
                boolean minorityDown = cluster.cutOffPrimaryDown();
                PartitionRun.Result result = run.finish();
                System.out.println("redis-cluster-" + round + ": " + result);
                assertEquals(0, result.repeats(), result.toString());
                assertTrue(minorityDown, "the cut-off primary's cluster state is fail");
                assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the failover: " + result);
                return result;
            }
        });
    }
}
