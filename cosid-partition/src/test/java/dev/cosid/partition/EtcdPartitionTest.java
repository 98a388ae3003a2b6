package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.NetworkPartition;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An etcd cluster under a real partition: the leader and client A cut off on side A, the two other members and
 * client B on side B, both clients on one slot with both guards. Every write is a Raft quorum write: the cut-off
 * leader commits none once cut, so A's ceiling cannot move; B takes the slot over once the lease A held has
 * expired: no id twice.
 */
class EtcdPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");

    @Test
    void theLeaderCutOffWithItsClientRepeatsNoIdAndTheMajorityServesTheOther() {
        PartitionRun.rounds("etcd", round -> {
            try (NetworkPartition net = NetworkPartition.created(); EtcdSetup etcd = EtcdSetup.started(net)) {
                PartitionRun run = new PartitionRun(net, RUNS.resolve("etcd-" + round));
                PartitionRun.Client a = run.start("a", net.a(), etcd.url());
                run.awaitIssuing(a, Duration.ofSeconds(60));
                PartitionRun.Client b = run.start("b", net.b(), etcd.url());
                run.awaitWaiting(b, Duration.ofSeconds(60));
                run.cut();
                etcd.awaitNewLeader(Duration.ofSeconds(30));
                run.awaitIssuing(b, Duration.ofSeconds(30));
                PartitionRun.Result result = run.finish();
                System.out.println("etcd-" + round + ": " + result);
                assertEquals(0, result.repeats(), result.toString());
                assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the election: " + result);
                assertEquals(0, result.pastCeiling("a"), "A stops at its confirmed ceiling: " + result);
                return result;
            }
        });
    }
}
