package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.NetworkPartition;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A ZooKeeper ensemble under a real partition: the leader and client A cut off on side A, the two followers and
 * client B on side B, both clients on one slot with both guards. Every write is a quorum write: the cut-off
 * leader takes none once cut, so A's ceiling cannot move; B takes the slot over once the lease A held has
 * expired: no id twice.
 */
class ZooKeeperPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");

    @Test
    void theLeaderCutOffWithItsClientRepeatsNoIdAndTheMajorityServesTheOther() {
        PartitionRun.rounds("zookeeper", round -> {
            try (NetworkPartition net = NetworkPartition.created();
                    ZooKeeperSetup zookeeper = ZooKeeperSetup.started(net)) {
                PartitionRun run = new PartitionRun(net, RUNS.resolve("zookeeper-" + round));
                PartitionRun.Client a = run.start("a", net.a(), zookeeper.url());
                run.awaitIssuing(a, Duration.ofSeconds(60));
                PartitionRun.Client b = run.start("b", net.b(), zookeeper.url());
                run.awaitWaiting(b, Duration.ofSeconds(60));
                run.cut();
                zookeeper.awaitNewLeader(Duration.ofSeconds(30));
                run.awaitIssuing(b, Duration.ofSeconds(30));
                boolean leaderStopped = zookeeper.cutOffStopped();
                PartitionRun.Result result = run.finish();
                System.out.println("zookeeper-" + round + ": " + result);
                assertEquals(0, result.repeats(), result.toString());
                assertTrue(leaderStopped, "the cut-off leader stops serving without a quorum");
                assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the election: " + result);
                assertEquals(0, result.pastCeiling("a"), "A stops at its confirmed ceiling: " + result);
                return result;
            }
        });
    }
}
