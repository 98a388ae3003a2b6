package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each member with its own transport, as in production: the broker, not the client, rejects a deposed
 * leader's writes; and {@code current()} stays right while the holder keeps committing, under
 * transaction protocol version 2 (the default) and, after a downgrade of the cluster, version 1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaFencingTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }
    private final ManualClock clock = new ManualClock(1_800_000_000_000L);

    private void deposedLeaderIsFencedByTheBrokerAndTheHolderStaysCurrent(boolean expectV2) {
        Role role = Role.of("controller-" + UUID.randomUUID().toString().substring(0, 8));
        try (KafkaCoordinationTransport transportA = KafkaCoordinationTransport.create(bootstrap(), 1);
             KafkaCoordinationTransport transportB = KafkaCoordinationTransport.create(bootstrap(), 1)) {
            assertEquals(expectV2, transportA.transactionsV2());
            CoordinationClient a = new CoordinationClient(transportA, CONFIG, clock);
            CoordinationClient b = new CoordinationClient(transportB, CONFIG, clock);
            Leadership leaderA = a.tryAcquire(role, MemberId.of("a")).orElseThrow();
            for (int i = 0; i < 3; i++) {
                leaderA.renew();
                assertTrue(b.describe(role).current(), "a third party sees a's lease as current after commit " + i);
            }
            assertEquals(Optional.empty(), b.tryAcquire(role, MemberId.of("b")));
            clock.advance(Duration.ofSeconds(31));
            Leadership leaderB = b.tryAcquire(role, MemberId.of("b")).orElseThrow();
            assertTrue(leaderB.token().supersedes(leaderA.token()));

            // a still holds its producer and epoch: its write reaches the broker, which rejects it
            FencedException fenced = assertThrows(FencedException.class, leaderA::renew);
            assertTrue(fenced.getMessage().contains("the broker fenced"), fenced.getMessage());

            for (int i = 0; i < 3; i++) {
                leaderB.renew();
                LeadershipStatus status = a.describe(role);
                assertEquals(Optional.of(MemberId.of("b")), status.holder());
                assertTrue(status.current(), "b stays current while it keeps committing");
            }
            assertFalse(status(a, role).lease().orElseThrow().token().equals(leaderA.token()));
        }
    }

    private static LeadershipStatus status(CoordinationClient client, Role role) {
        return client.describe(role);
    }

    @Test
    @Order(1)
    void underTransactionVersionTwo() {
        deposedLeaderIsFencedByTheBrokerAndTheHolderStaysCurrent(true);
    }

    @Test
    @Order(2)
    void underTransactionVersionOne() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.updateFeatures(Map.of("transaction.version",
                    new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                    new UpdateFeaturesOptions()).all().get();
        }
        deposedLeaderIsFencedByTheBrokerAndTheHolderStaysCurrent(false);
    }
}
