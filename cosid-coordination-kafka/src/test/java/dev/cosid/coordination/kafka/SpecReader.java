package dev.cosid.coordination.kafka;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Another client of the frozen format, written from the specification (coordination.md, section 5)
 * and not from CosId's classes: its own byte layout with {@link ByteBuffer}, its own murmur2, a plain
 * consumer and producer, and {@code Admin.describeTransactions}. It reads the partition count from the
 * topic, treats null and zero-length values as tombstones, and calls a lease current when its
 * {@code (producer_id, producer_epoch)} equals the coordinator's pair for {@code transactional.id = role}.
 */
final class SpecReader implements AutoCloseable {

    static final String TOPIC = "__coordination_state";

    /** A lease value as the format lays it out. */
    record LeaseRecord(String member, long producerId, short producerEpoch, long grantedAt, long deadline) {
    }

    /** What this client concludes about a role. */
    record Status(Optional<LeaseRecord> lease, Optional<long[]> coordinator) {

        Optional<String> holder() {
            return lease.map(LeaseRecord::member);
        }

        boolean current() {
            return lease.isPresent() && coordinator.isPresent()
                    && lease.get().producerId() == coordinator.get()[0]
                    && lease.get().producerEpoch() == coordinator.get()[1];
        }
    }

    private final String bootstrap;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;

    SpecReader(String bootstrap) {
        this.bootstrap = bootstrap;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
    }

    // ---- the partitioner: toPositive(murmur2(utf8(role))) % partitions, Kafka's seed and sign-bit mask

    static int murmur2(byte[] data) {
        int m = 0x5bd1e995;
        int h = 0x9747b28c ^ data.length;
        ByteBuffer blocks = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        while (blocks.remaining() >= 4) {
            int k = blocks.getInt() * m;
            k = (k ^ (k >>> 24)) * m;
            h = (h * m) ^ k;
        }
        int rest = blocks.remaining();
        int base = data.length - rest;
        if (rest > 0) {
            for (int i = rest - 1; i >= 0; i--) {
                h ^= (data[base + i] & 0xff) << (8 * i);
            }
            h *= m;
        }
        h = (h ^ (h >>> 13)) * m;
        return h ^ (h >>> 15);
    }

    static int partitionFor(String role, int partitions) {
        return (murmur2(role.getBytes(StandardCharsets.UTF_8)) & 0x7fffffff) % partitions;
    }

    int partitions() throws Exception {
        return admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC)
                .partitions().size();
    }

    int partitionOf(String role) throws Exception {
        return partitionFor(role, partitions());
    }

    // ---- the byte layout: big-endian, a string is an i16 byte length then UTF-8

    private static void putString(ByteBuffer buffer, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    private static String getString(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.getShort()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static byte[] key(short kind, String role, String member) {
        ByteBuffer buffer = ByteBuffer.allocate(256 * 2 + 8);
        buffer.putShort((short) 0).putShort(kind);
        putString(buffer, role);
        putString(buffer, member);
        byte[] out = new byte[buffer.position()];
        buffer.flip().get(out);
        return out;
    }

    static byte[] registrationValue(String member, long registeredAt) {
        ByteBuffer buffer = ByteBuffer.allocate(256 + 12);
        buffer.putShort((short) 0);
        putString(buffer, member);
        buffer.putLong(registeredAt);
        byte[] out = new byte[buffer.position()];
        buffer.flip().get(out);
        return out;
    }

    // ---- writing as another client: a plain producer, the partition pinned

    /** Writes one record with a plain (non-transactional) producer and returns its offset. */
    long write(int partition, byte[] key, byte[] value) throws Exception {
        return producer.send(new ProducerRecord<>(TOPIC, partition, key, value)).get(30, TimeUnit.SECONDS).offset();
    }

    long register(String role, String member, long registeredAt) throws Exception {
        return write(partitionOf(role), key((short) 0, role, member), registrationValue(member, registeredAt));
    }

    // ---- reading: the role's partition to its end, read_committed, the last lease record wins

    List<ConsumerRecord<byte[], byte[]>> readPartition(int partition) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(TOPIC, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            while (consumer.position(tp, Duration.ofSeconds(30)) < end) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }

    Optional<LeaseRecord> lease(String role) throws Exception {
        Optional<LeaseRecord> lease = Optional.empty();
        for (ConsumerRecord<byte[], byte[]> record : readPartition(partitionOf(role))) {
            ByteBuffer key = ByteBuffer.wrap(record.key());
            if (key.getShort() != 0 || key.getShort() != 1 || !getString(key).equals(role)) {
                continue; // another version, a registration, or another role
            }
            if (record.value() == null || record.value().length == 0) {
                lease = Optional.empty(); // a tombstone clears the lease
                continue;
            }
            ByteBuffer value = ByteBuffer.wrap(record.value());
            if (value.getShort() != 0) {
                throw new IllegalStateException("unknown lease value version at offset " + record.offset());
            }
            lease = Optional.of(new LeaseRecord(getString(value), value.getLong(), value.getShort(), value.getLong(),
                    value.getLong()));
        }
        return lease;
    }

    /** The coordinator's {@code (producerId, epoch)} for {@code transactional.id = role}, once settled. */
    Optional<long[]> coordinator(String role) throws Exception {
        for (int attempt = 0; attempt < 100; attempt++) {
            TransactionDescription description;
            try {
                description = admin.describeTransactions(List.of(role)).description(role).get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TransactionalIdNotFoundException) {
                    return Optional.empty();
                }
                throw e;
            }
            if (description.state() != TransactionState.PREPARE_COMMIT
                    && description.state() != TransactionState.PREPARE_ABORT) {
                return description.producerId() < 0 ? Optional.empty()
                        : Optional.of(new long[] {description.producerId(), description.producerEpoch()});
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10)); // a commit is completing
        }
        throw new IllegalStateException("the transaction of " + role + " stayed in a prepare state");
    }

    /**
     * Reads the coordinator's pair (once settled: a commit's markers are then in the partition), the lease,
     * and the pair again, until the pair did not move in between: one instant's view.
     */
    Status status(String role) throws Exception {
        Optional<long[]> before = coordinator(role);
        for (int attempt = 0; attempt < 10; attempt++) {
            Optional<LeaseRecord> lease = lease(role);
            Optional<long[]> after = coordinator(role);
            if (same(before, after)) {
                return new Status(lease, after);
            }
            before = after;
        }
        throw new IllegalStateException("the coordinator's pair of " + role + " kept moving");
    }

    private static boolean same(Optional<long[]> a, Optional<long[]> b) {
        return a.isPresent() == b.isPresent() && (a.isEmpty() || java.util.Arrays.equals(a.get(), b.get()));
    }

    @Override
    public void close() {
        producer.close(Duration.ZERO);
        admin.close(Duration.ZERO);
    }
}
