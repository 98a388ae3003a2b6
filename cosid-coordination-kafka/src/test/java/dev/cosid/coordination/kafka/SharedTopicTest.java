package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Our transport on a topic shared with another client of the frozen format ({@link SpecReader},
 * written from the specification, not from our classes): a topic the test creates with 32 partitions,
 * records that client writes with a plain producer (registrations, a zero-length value, malformed
 * records), and its view of who is current, under transaction protocol version 2 and then 1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharedTopicTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);
    private KafkaCoordinationTransport transport;
    private CoordinationClient client;
    private SpecReader other;

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }

    @BeforeAll
    static void anotherClientCreatedTheTopicWithThirtyTwoPartitions() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(SpecReader.TOPIC, 32, (short) 1)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))))
                    .all().get();
        }
    }

    @BeforeEach
    void connect() {
        transport = KafkaCoordinationTransport.create(bootstrap(), 1);
        client = new CoordinationClient(transport, CONFIG, clock);
        other = new SpecReader(bootstrap());
    }

    @AfterEach
    void disconnect() {
        transport.close();
        other.close();
    }

    private List<MemberId> roster(Role role) {
        return client.state(role).roster().stream().map(RosterEntry::member).collect(Collectors.toList());
    }

    @Test
    @Order(1)
    void bothClientsUseTheTopicsThirtyTwoPartitionsAndMeetInPartitionTwentyEightForController() throws Exception {
        assertEquals(28, SpecReader.partitionFor("controller", 32));
        Role controller = Role.of("controller");

        other.register("controller", "their-node", clock.nowMillis());
        assertEquals(List.of(MemberId.of("their-node")), roster(controller), "we read what they wrote");

        assertEquals(Optional.empty(), client.tryAcquire(controller, MemberId.of("our-node")), "rank 1 waits a stagger");
        assertEquals(List.of(MemberId.of("their-node"), MemberId.of("our-node")), roster(controller));
        clock.advance(CONFIG.challengeStagger());
        Leadership ours = client.tryAcquire(controller, MemberId.of("our-node")).orElseThrow();
        SpecReader.Status seen = other.status("controller");
        assertEquals(Optional.of("our-node"), seen.holder(), "they read what we wrote");
        assertTrue(seen.current());
        assertEquals(ours.lease().token().producerId(), seen.lease().orElseThrow().producerId());
        assertTrue(client.roles().stream().anyMatch(status -> status.role().equals(controller)));
        assertEquals(32, transport.partitions());
    }

    @Test
    @Order(2)
    void aZeroLengthValueFromAnotherClientClearsOurLeaseAndARegistration() throws Exception {
        Role role = Role.of("zero-length");
        Leadership ours = client.tryAcquire(role, MemberId.of("a")).orElseThrow();
        transport.register(role, MemberId.of("b"), clock.nowMillis());
        assertEquals(Optional.of(MemberId.of("a")), client.describe(role).holder());

        int partition = other.partitionOf("zero-length");
        other.write(partition, SpecReader.key((short) 1, "zero-length", ""), new byte[0]);
        other.write(partition, SpecReader.key((short) 0, "zero-length", "b"), new byte[0]);

        assertEquals(Optional.empty(), client.describe(role).lease(), "their clear counts like a null tombstone");
        assertEquals(List.of(MemberId.of("a")), roster(role), "b's registration is gone");
        assertEquals(Optional.empty(), other.lease("zero-length"));
        ours.renew(); // the epoch is still ours: the lease is written again
        assertEquals(Optional.of(MemberId.of("a")), client.describe(role).holder());
    }

    @Test
    @Order(3)
    void aMalformedRecordFailsTheReadNamingItsPartitionAndOffsetUntilATombstoneWithItsKeyClearsIt() throws Exception {
        Role role = Role.of("malformed");
        client.tryAcquire(role, MemberId.of("a")).orElseThrow();
        int partition = other.partitionOf("malformed");

        // a key of an unknown version: it cannot be read, so it could be a newer lease of any role here
        byte[] futureKey = SpecReader.key((short) 1, "malformed", "");
        futureKey[1] = 7;
        long offset = other.write(partition, futureKey, SpecReader.registrationValue("z", 1));
        CoordinationException read = assertThrows(CoordinationException.class, () -> client.state(role));
        assertTrue(read.getMessage().startsWith("malformed record at __coordination_state-" + partition + " offset "
                + offset + ": "), read.getMessage());
        assertTrue(read.getMessage().contains("unknown key version 7"), read.getMessage());
        CoordinationException listing = assertThrows(CoordinationException.class, transport::roles);
        assertTrue(listing.getMessage().contains("offset " + offset), listing.getMessage());
        other.write(partition, futureKey, null);
        assertEquals(Optional.of(MemberId.of("a")), client.describe(role).holder(), "the tombstone cleared it");
        assertTrue(transport.roles().contains(role));

        // a truncated lease value under our role's lease key
        long truncated = other.write(partition, SpecReader.key((short) 1, "malformed", ""), new byte[] {0, 0, 0, 6});
        CoordinationException value = assertThrows(CoordinationException.class, () -> client.describe(role));
        assertTrue(value.getMessage().startsWith("malformed record at __coordination_state-" + partition + " offset "
                + truncated + ": "), value.getMessage());
        assertTrue(value.getMessage().contains("truncated"), value.getMessage());
        other.write(partition, SpecReader.key((short) 1, "malformed", ""), null);
        assertEquals(Optional.empty(), client.describe(role).lease(), "a later record of the key supersedes it");
    }

    /** Our holder is current for the other client; a deposed one is not, and its writes are fenced. */
    private void theOtherClientSeesOurHolderAsCurrentAndADeposedOneAsNot(String name, boolean v2) throws Exception {
        Role role = Role.of(name);
        try (KafkaCoordinationTransport transportB = KafkaCoordinationTransport.create(bootstrap(), 1)) {
            assertEquals(v2, transport.transactionsV2());
            CoordinationClient b = new CoordinationClient(transportB, CONFIG, clock);
            Leadership leaderA = client.tryAcquire(role, MemberId.of("a")).orElseThrow();
            for (int i = 0; i < 3; i++) {
                SpecReader.Status seen = other.status(name);
                assertEquals(Optional.of("a"), seen.holder());
                assertTrue(seen.current(), "renewal " + i + ": " + seen.lease() + " vs coordinator "
                        + seen.coordinator().map(pair -> pair[0] + ":" + pair[1]));
                assertEquals(leaderA.lease().token(), token(seen), "the lease a holds is the one they read");
                leaderA.renew();
                assertEquals(Optional.of(leaderA.lease()), other.lease(name).map(lease -> new Lease(
                        MemberId.of(lease.member()), FencingToken.of(lease.producerId(), lease.producerEpoch()),
                        lease.grantedAt(), lease.deadline())), "a read_committed read right after renew() sees it");
            }
            assertEquals(Optional.empty(), b.tryAcquire(role, MemberId.of("b")), "b registers and waits");
            clock.advance(Duration.ofSeconds(31)); // a stops renewing; its lease lapses
            FencingToken minted = transportB.acquireEpoch(role); // b mints, and has not written its lease yet
            SpecReader.Status deposed = other.status(name);
            assertEquals(Optional.of("a"), deposed.holder());
            assertFalse(deposed.current(), "a's lease names a superseded epoch once b minted " + minted);
            assertFalse(client.describe(role).current());

            Leadership leaderB = b.tryAcquire(role, MemberId.of("b")).orElseThrow();
            assertThrows(FencedException.class, leaderA::renew);
            for (int i = 0; i < 3; i++) {
                SpecReader.Status seen = other.status(name);
                assertEquals(Optional.of("b"), seen.holder());
                assertTrue(seen.current(), "b's write " + i);
                assertEquals(leaderB.lease().token(), token(seen));
                leaderB.renew();
            }
            if (v2) {
                assertTrue(leaderB.lease().token().supersedes(leaderB.token()),
                        "under version 2 the lease carries the epoch after its commit, not the minted one");
            } else {
                assertEquals(leaderB.token(), leaderB.lease().token(), "under version 1 the epoch moves only when minted");
            }
        }
    }

    private static FencingToken token(SpecReader.Status seen) {
        SpecReader.LeaseRecord lease = seen.lease().orElseThrow();
        return FencingToken.of(lease.producerId(), lease.producerEpoch());
    }

    @Test
    @Order(4)
    void anIndependentReaderAgreesWhoIsCurrentUnderTransactionVersionTwo() throws Exception {
        theOtherClientSeesOurHolderAsCurrentAndADeposedOneAsNot("reader-v2", true);
    }

    @Test
    @Order(5)
    void anIndependentReaderAgreesWhoIsCurrentUnderTransactionVersionOne() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.updateFeatures(Map.of("transaction.version",
                    new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                    new UpdateFeaturesOptions()).all().get();
        }
        disconnect();
        connect(); // the transport reads the version when it connects
        theOtherClientSeesOurHolderAsCurrentAndADeposedOneAsNot("reader-v1", false);
    }
}
