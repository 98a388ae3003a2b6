package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leader's own records, written inside the role's transactions: the brokers refuse a deposed leader's,
 * a {@code read_committed} reader sees every leader's records in token order, and the lease reads as current
 * while the leader commits its own transactions, under transaction protocol version 2 and version 1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LeaderTransactionTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }

    private static String newTopic() throws Exception {
        String topic = "out-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String text) {
        return new ProducerRecord<>(topic, null, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads a topic to its end as a read_committed consumer would. */
    private static List<String> committed(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<String> values = new ArrayList<>();
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            return values;
        }
    }

    private void aDeposedLeadersRecordsNeverLandAndTheHolderStaysCurrent(boolean v2) throws Exception {
        Role role = Role.of("billing-" + UUID.randomUUID().toString().substring(0, 8));
        String topic = newTopic();
        try (KafkaCoordinationTransport transportA = KafkaCoordinationTransport.create(bootstrap(), 1);
             KafkaCoordinationTransport transportB = KafkaCoordinationTransport.create(bootstrap(), 1)) {
            assertEquals(v2, transportA.transactionsV2());
            CoordinationClient a = new CoordinationClient(transportA, CONFIG, clock);
            CoordinationClient b = new CoordinationClient(transportB, CONFIG, clock);
            Leadership leaderA = a.tryAcquire(role, MemberId.of("a")).orElseThrow();
            for (int i = 0; i < 3; i++) {
                int n = i;
                transportA.inTransaction(leaderA, tx -> tx.send(record(topic, "a" + n)));
                assertTrue(b.describe(role).current(), "the lease reads as current after the leader's commit " + i);
            }
            leaderA.renew();
            transportA.inTransaction(leaderA, tx -> tx.send(record(topic, "a3")));
            assertTrue(b.describe(role).current());

            clock.advance(Duration.ofSeconds(31)); // a paused past its deadline; b challenges
            Leadership leaderB = b.tryAcquire(role, MemberId.of("b")).orElseThrow();
            transportB.inTransaction(leaderB, tx -> tx.send(record(topic, "b0")));

            // a wakes up still believing it leads: its producer and epoch reach the broker, which refuses them
            FencedException fenced = assertThrows(FencedException.class,
                    () -> transportA.inTransaction(leaderA, tx -> tx.send(record(topic, "a-stale"))));
            assertTrue(fenced.getMessage().contains("fenced"), fenced.getMessage());
            transportB.inTransaction(leaderB, tx -> tx.send(record(topic, "b1")));
            assertTrue(a.describe(role).current());
            assertEquals(List.of("a0", "a1", "a2", "a3", "b0", "b1"), committed(topic));
        }
    }

    @Test
    @Order(1)
    void underTransactionVersionTwo() throws Exception {
        aDeposedLeadersRecordsNeverLandAndTheHolderStaysCurrent(true);
    }

    @Test
    @Order(2)
    void aFailingBodyAbortsEverythingItSentAndItsExceptionStands() throws Exception {
        Role role = Role.of("abort-" + UUID.randomUUID().toString().substring(0, 8));
        String topic = newTopic();
        try (KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(bootstrap(), 1)) {
            Leadership leader = new CoordinationClient(transport, CONFIG, clock).tryAcquire(role, MemberId.of("a"))
                    .orElseThrow();
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> transport.inTransaction(leader, tx -> {
                        tx.send(record(topic, "half"));
                        throw new IllegalStateException("the leader's code failed");
                    }));
            assertEquals("the leader's code failed", thrown.getMessage());
            transport.inTransaction(leader, tx -> tx.send(new ProducerRecord<>(topic, "k", "whole"),
                    new StringSerializer(), new StringSerializer()));
            assertEquals(List.of("whole"), committed(topic));
            CoordinationException frozen = assertThrows(CoordinationException.class, () -> transport.inTransaction(
                    leader, tx -> tx.send(record(KafkaCoordinationTransport.TOPIC, "x"))));
            assertTrue(frozen.getMessage().contains("format is frozen"), frozen.getMessage());
            leader.resign();
            assertThrows(FencedException.class, () -> transport.inTransaction(leader, tx -> tx.send(record(topic,
                    "after resigning"))));
            assertEquals(List.of("whole"), committed(topic));
        }
    }

    @Test
    @Order(3)
    void consumedOffsetsCommitWithTheRecordsTheLeaderProducedFromThem() throws Exception {
        Role role = Role.of("transform-" + UUID.randomUUID().toString().substring(0, 8));
        String input = newTopic();
        String output = newTopic();
        String group = "g-" + role;
        try (KafkaProducer<byte[], byte[]> plain = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < 5; i++) {
                plain.send(record(input, "in" + i)).get();
            }
        }
        try (KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(bootstrap(), 1);
             KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                     ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(), ConsumerConfig.GROUP_ID_CONFIG, group,
                     ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                     ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                     ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                     new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Leadership leader = new CoordinationClient(transport, CONFIG, clock).tryAcquire(role, MemberId.of("a"))
                    .orElseThrow();
            TopicPartition in = new TopicPartition(input, 0);
            consumer.assign(List.of(in));
            List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
            while (read.size() < 5) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
            transport.inTransaction(leader, tx -> {
                for (ConsumerRecord<byte[], byte[]> record : read) {
                    tx.send(record(output, new String(record.value(), StandardCharsets.UTF_8).replace("in", "out")));
                }
                tx.sendOffsets(Map.of(in, new OffsetAndMetadata(read.get(read.size() - 1).offset() + 1)),
                        consumer.groupMetadata());
                return null;
            });
            assertEquals(List.of("out0", "out1", "out2", "out3", "out4"), committed(output));
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
                assertEquals(5, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                        .get(in).offset());
            }
        }
    }

    @Test
    @Order(4)
    void underTransactionVersionOne() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.updateFeatures(Map.of("transaction.version",
                    new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                    new UpdateFeaturesOptions()).all().get();
        }
        aDeposedLeadersRecordsNeverLandAndTheHolderStaysCurrent(false);
    }
}
