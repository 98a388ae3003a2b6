package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RolePartitioner;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.KafkaCluster;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Leadership on a real three-node cluster whose broker dies: SIGKILL the node that coordinates the role's
 * transactions, and the two others still mint a newer epoch and take its lease write (two replicas in sync), the
 * deposed leader is still fenced, and the node comes back on its data with every replica in sync again.
 */
class KafkaClusterFailoverTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);

    @Test
    void aNewEpochIsMintedAndALeaseWrittenOnceTheCoordinatorsBrokerIsKilledAndTheBrokerRejoinsInSync()
            throws Exception {
        Role role = Role.of("controller-" + UUID.randomUUID().toString().substring(0, 8));
        try (KafkaCluster kafka = KafkaCluster.started(3);
                KafkaCoordinationTransport transportA = KafkaCoordinationTransport.create(kafka.bootstrapServers(), 3)) {
            int statePartition = kafka.transactionStatePartition(role.name());
            int rolePartition = RolePartitioner.partitionFor(role, transportA.partitions());
            CoordinationClient a = new CoordinationClient(transportA, CONFIG, clock);
            Leadership first = a.tryAcquire(role, MemberId.of("a")).orElseThrow();
            assertEquals(List.of(1, 2, 3), kafka.inSyncReplicas(KafkaCluster.TRANSACTION_STATE, statePartition));

            int coordinator = kafka.leaderOf(KafkaCluster.TRANSACTION_STATE, statePartition);
            kafka.kill(coordinator);
            Await.until(() -> kafka.leaderOf(KafkaCluster.TRANSACTION_STATE, statePartition) != coordinator,
                    Duration.ofSeconds(30), "a new leader of " + KafkaCluster.TRANSACTION_STATE + "-" + statePartition
                            + " after node " + coordinator + " was killed");
            Await.until(() -> !kafka.inSyncReplicas(KafkaCluster.TRANSACTION_STATE, statePartition).contains(coordinator),
                    Duration.ofSeconds(10), "the killed node " + coordinator + " leaving the in-sync replicas");

            clock.advance(Duration.ofSeconds(31));
            try (KafkaCoordinationTransport transportB = KafkaCoordinationTransport.create(kafka.bootstrapServers(), 3)) {
                CoordinationClient b = new CoordinationClient(transportB, CONFIG, clock);
                Leadership second = b.tryAcquire(role, MemberId.of("b")).orElseThrow(
                        () -> new AssertionError("b did not win the expired role on the two remaining nodes"));
                assertTrue(second.token().supersedes(first.token()), second.token() + " supersedes " + first.token());
                assertEquals(Optional.of(MemberId.of("b")), b.describe(role).holder());
                assertTrue(b.describe(role).current(), "the new coordinator reports b's lease as current");
                FencedException fenced = assertThrows(FencedException.class, first::renew);
                assertTrue(fenced.getMessage().contains("fenced"), fenced.getMessage());
            }

            kafka.restart(coordinator);
            for (String topic : List.of(KafkaCluster.TRANSACTION_STATE, KafkaCoordinationTransport.TOPIC)) {
                int partition = topic.equals(KafkaCluster.TRANSACTION_STATE) ? statePartition : rolePartition;
                // restart waited until every partition was in sync as one broker saw it; this question may go to another
                Await.until(() -> kafka.inSyncReplicas(topic, partition).equals(List.of(1, 2, 3)),
                        Duration.ofSeconds(10), () -> "every replica of " + topic + "-" + partition + " in sync again, not only "
                                + kafka.inSyncReplicas(topic, partition));
            }
            assertNotEquals(coordinator, kafka.leaderOf(KafkaCluster.TRANSACTION_STATE, statePartition),
                    "the leadership stays where the failover put it");
        }
    }
}
