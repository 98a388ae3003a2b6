package dev.cosid.coordination.kafka;

import dev.cosid.coordination.CoordinationCodec;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationKey;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Registration;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RolePartitioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeTransactionsOptions;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The coordination transport over a Kafka cluster. The epoch of a role is the producer epoch the
 * transaction coordinator mints for {@code transactional.id = role}; lease writes are transactions
 * of that producer, so the brokers reject a deposed leader's writes. Registrations go through a plain
 * idempotent producer; reads are {@code read_committed} reads of the role's pinned partition.
 *
 * <p>Under transaction protocol version 2 (KIP-890, the default of Kafka 4) every commit moves the
 * producer epoch on. The transport knows the version from the cluster's finalized features, tracks
 * the epoch it expects after each commit, and writes into a lease the token that will be current once
 * that lease's transaction commits, so {@code LeadershipStatus.current()} stays right under both
 * versions, for this client and for any other client of the format.
 *
 * <p>The topic is shared with other clients of the frozen format: the transport uses the topic's real
 * partition count (16 when it creates the topic), treats a zero-length value as a tombstone, and fails a
 * read that meets a malformed record it cannot rule out, naming the partition and offset. Every call
 * that waits on the cluster waits at most the transport's timeout; a cluster that cannot be reached
 * fails {@code create} within it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (KafkaCoordinationTransport transport = KafkaCoordinationTransport.create("localhost:9092", 3)) {
 *     CoordinationClient client = new CoordinationClient(transport, LeaseConfig.DEFAULT, Clock.system());
 * }
 * }</pre>
 */
public final class KafkaCoordinationTransport implements CoordinationTransport {

    /** The compacted topic of the frozen record format. */
    public static final String TOPIC = "__coordination_state";
    /** How long a call waits on the cluster unless the transport is created with another timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    private static final dev.cosid.time.Clock CLOCK = dev.cosid.time.Clock.system();

    private final Map<String, Object> clientConfig;
    private final Duration timeout;
    /** How long one request to one broker may take: see {@link #withRequestBounds}. */
    private final long requestTimeoutMillis;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> registrations;
    private final int partitions;
    private final Duration transactionTimeout;
    private final boolean transactionsV2;
    private final Map<Role, RoleProducer> producers = new HashMap<>();
    private final Object readLock = new Object();
    private KafkaConsumer<byte[], byte[]> reader;
    private boolean closed;

    /** A role's transactional producer, bound to its epoch for life. */
    private static final class RoleProducer {
        final KafkaProducer<byte[], byte[]> producer;
        final FencingToken minted;
        /** The token the coordinator will report once the next transaction commits. */
        FencingToken nextCommitted;
        /** The latest lease this producer wrote, as written; rewritten in each of the leader's own transactions. */
        Lease lastLease;

        RoleProducer(KafkaProducer<byte[], byte[]> producer, FencingToken minted, FencingToken nextCommitted) {
            this.producer = producer;
            this.minted = minted;
            this.nextCommitted = nextCommitted;
        }
    }

    private KafkaCoordinationTransport(Map<String, Object> clientConfig, int replicationFactor, Duration leaseDuration,
                                       Duration timeout) {
        Objects.requireNonNull(clientConfig, "clientConfig");
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(timeout, "timeout");
        if (!(clientConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) instanceof String servers)
                || servers.isBlank()) {
            throw new CoordinationException("the client settings name no " + AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG
                    + ": " + clientConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
        }
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new CoordinationException("replication factor " + replicationFactor + " is not between 1 and "
                    + Short.MAX_VALUE);
        }
        if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new CoordinationException("timeout of " + timeout.toMillis() + " ms is not between 1 ms and "
                    + Integer.MAX_VALUE + " ms");
        }
        if (leaseDuration.compareTo(Duration.ofMillis(1)) < 0
                || leaseDuration.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
            throw new CoordinationException("lease duration of " + leaseDuration.toMillis()
                    + " ms is not between 1 ms and " + Integer.MAX_VALUE + " ms");
        }
        this.clientConfig = Map.copyOf(withRequestBounds(clientConfig, leaseDuration, timeout));
        this.timeout = timeout;
        this.requestTimeoutMillis = ((Number) this.clientConfig.get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG))
                .longValue();
        this.transactionTimeout = leaseDuration.compareTo(Duration.ofMinutes(1)) > 0 ? leaseDuration
                : Duration.ofMinutes(1);
        Map<String, Object> adminConfig = new HashMap<>(this.clientConfig);
        adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try {
            this.admin = Admin.create(adminConfig);
        } catch (KafkaException e) {
            throw new CoordinationException("cannot connect to the Kafka cluster at " + bootstrap() + ": "
                    + messageOf(rootCause(e)), e);
        }
        try {
            requireReachable();
            ensureTopic(replicationFactor);
            this.partitions = partitionCount();
            this.transactionsV2 = transactionVersion() >= 2;
            Map<String, Object> config = new HashMap<>(this.clientConfig);
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
            this.registrations = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (RuntimeException e) {
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Returns the client settings with each request to one broker bounded well inside the lease: a tenth of the
     * lease (at least 1 s, at most the call timeout), connection setup within half of that, unless the settings ask
     * for less. A request sent to a broker that died or was cut off then fails over to the broker the cluster moved
     * the partition or the transaction coordinator to, within the renewal's time; with Kafka's 30 s request timeout
     * (or the call timeout, which the admin client once used per request) one such request outlasted the lease,
     * and one broker of three cost the leader its role. A tenth, as one renewal may meet the silent broker three
     * times in a row (the lease write waiting for the in-sync replicas to shrink, the commit sent to the old
     * coordinator, the read-back's coordinator lookup), and must still end before the deadline less the margin.
     *
     * @param clientConfig the user's client settings
     * @param leaseDuration the lease duration
     * @param timeout the call timeout
     * @return the settings to build every client with
     */
    static Map<String, Object> withRequestBounds(Map<String, Object> clientConfig, Duration leaseDuration,
                                                 Duration timeout) {
        long request = Math.min(timeout.toMillis(), Math.max(1000, leaseDuration.toMillis() / 10));
        request = Math.min(request, millis(clientConfig, CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 30_000));
        long setup = Math.min(Math.max(1, request / 2),
                millis(clientConfig, CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 10_000));
        long setupMax = Math.max(setup, Math.min(request,
                millis(clientConfig, CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 30_000)));
        Map<String, Object> bounded = new HashMap<>(clientConfig);
        bounded.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, (int) request);
        bounded.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, setup);
        bounded.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, setupMax);
        return bounded;
    }

    /** A setting in milliseconds as a number or its text, or the default when it is not set. */
    private static long millis(Map<String, Object> config, String key, long defaultMillis) {
        Object value = config.get(key);
        if (value == null) {
            return defaultMillis;
        }
        try {
            return value instanceof Number number ? number.longValue() : Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new CoordinationException("the client setting " + key + " = '" + value + "' is not a number of "
                    + "milliseconds", e);
        }
    }

    /**
     * Connects to a cluster, creating the topic if it is missing.
     *
     * @param bootstrapServers {@code host:port[,host:port...]}
     * @param replicationFactor the replication factor of a topic this transport creates (3 in production)
     * @return the transport
     * @throws CoordinationException when the cluster cannot be reached within {@link #DEFAULT_TIMEOUT} or the
     *     topic is not compacted
     */
    public static KafkaCoordinationTransport create(String bootstrapServers, int replicationFactor) {
        return create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), replicationFactor,
                Duration.ofSeconds(30));
    }

    /**
     * Connects to a cluster with client settings, waiting at most {@link #DEFAULT_TIMEOUT} on each call.
     *
     * @param clientConfig Kafka client settings, at least {@code bootstrap.servers}
     * @param replicationFactor the replication factor of a topic this transport creates
     * @param leaseDuration the lease duration; transactions time out no sooner
     * @return the transport
     * @throws CoordinationException when the cluster cannot be reached or the topic is not compacted
     */
    public static KafkaCoordinationTransport create(Map<String, Object> clientConfig, int replicationFactor,
                                                    Duration leaseDuration) {
        return create(clientConfig, replicationFactor, leaseDuration, DEFAULT_TIMEOUT);
    }

    /**
     * Connects to a cluster with client settings and a timeout.
     *
     * @param clientConfig Kafka client settings, at least {@code bootstrap.servers}
     * @param replicationFactor the replication factor of a topic this transport creates, 1 or more
     * @param leaseDuration the lease duration; transactions time out no sooner
     * @param timeout how long one call waits on the cluster; {@code create} fails within it (plus the time
     *     to set the topic up) when no broker answers
     * @return the transport
     * @throws NullPointerException naming the argument that is null
     * @throws CoordinationException for a bad setting, a cluster that cannot be reached within the timeout,
     *     or a topic that is not compacted
     */
    public static KafkaCoordinationTransport create(Map<String, Object> clientConfig, int replicationFactor,
                                                    Duration leaseDuration, Duration timeout) {
        return new KafkaCoordinationTransport(clientConfig, replicationFactor, leaseDuration, timeout);
    }

    /** Returns the partition count of the topic, read when the transport connected. */
    public int partitions() {
        return partitions;
    }

    private String bootstrap() {
        return String.valueOf(clientConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
    }

    /** Fails fast, with one clear sentence, when no broker answers within the timeout. */
    private void requireReachable() {
        try {
            admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("reach the cluster", e);
        } catch (TimeoutException | ExecutionException e) {
            Throwable cause = rootCause(e);
            if (e instanceof TimeoutException || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new CoordinationException("cannot reach the Kafka cluster at " + bootstrap() + " within "
                        + timeout.toMillis() + " ms: no broker answered", cause);
            }
            throw failure("reach the cluster", e);
        }
    }

    private int partitionCount() {
        TopicDescription description = onceTopicKnown("read the partition count of the topic " + TOPIC,
                () -> admin.describeTopics(List.of(TOPIC)).allTopicNames()
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(TOPIC));
        return description.partitions().size();
    }

    private interface AdminCall<T> {
        T call() throws Exception;
    }

    /**
     * Runs an admin call on the topic, asking again while the broker answered does not know the topic
     * yet: a topic just created reaches every broker's metadata a moment later.
     */
    private <T> T onceTopicKnown(String what, AdminCall<T> call) {
        long deadline = CLOCK.monotonicNanos() + timeout.toNanos();
        for (;;) {
            try {
                return call.call();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
                        || CLOCK.monotonicNanos() - deadline > 0) {
                    throw failure(what, e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure(what, e);
            } catch (Exception e) {
                throw failure(what, e);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Reports whether the cluster runs transaction protocol version 2. */
    public boolean transactionsV2() {
        return transactionsV2;
    }

    private short transactionVersion() {
        try {
            FeatureMetadata features = admin.describeFeatures().featureMetadata().get(timeout.toMillis(),
                    TimeUnit.MILLISECONDS);
            FinalizedVersionRange range = features.finalizedFeatures().get("transaction.version");
            return range == null ? 0 : range.maxVersionLevel();
        } catch (Exception e) {
            throw failure("read the cluster's transaction version", e);
        }
    }

    private void ensureTopic(int replicationFactor) {
        try {
            NewTopic topic = new NewTopic(TOPIC, RolePartitioner.DEFAULT_PARTITIONS, (short) replicationFactor)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            admin.createTopics(List.of(topic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw failure("create the topic " + TOPIC, e);
            }
        } catch (Exception e) {
            throw failure("create the topic " + TOPIC, e);
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        Config config = onceTopicKnown("describe the topic " + TOPIC, () -> admin.describeConfigs(List.of(resource))
                .all().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(resource));
        String policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
        if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
            throw new CoordinationException("the topic " + TOPIC + " has cleanup.policy=" + policy
                    + "; it must be compact, or the latest lease and registrations are deleted");
        }
    }

    private int partition(Role role) {
        return RolePartitioner.partitionFor(role, partitions);
    }

    @Override
    public synchronized FencingToken acquireEpoch(Role role) {
        RoleProducer previous = producers.remove(role);
        if (previous != null) {
            previous.producer.close(Duration.ZERO);
        }
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, role.name());
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) transactionTimeout.toMillis());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer());
        try {
            // InitProducerId: mints the epoch once; never retried in a loop, each call burns an epoch
            producer.initTransactions();
            FencingToken minted = describeSettled(role).orElseThrow(() ->
                    new CoordinationException("the coordinator reports no producer for role '" + role + "'"));
            producers.put(role, new RoleProducer(producer, minted, afterCommit(minted)));
            return minted;
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            if (isFenced(e)) {
                throw new FencedException("role '" + role + "': a newer epoch was minted while minting", e);
            }
            throw failure("mint an epoch for role '" + role + "'", e);
        }
    }

    /** The token the coordinator reports after one more commit: the same under version 1, the next epoch under 2. */
    private FencingToken afterCommit(FencingToken token) {
        if (!transactionsV2) {
            return token;
        }
        if (token.producerEpoch() >= Short.MAX_VALUE - 1) {
            return FencingToken.NO_EPOCH; // a new producer id follows; read it back after the commit
        }
        return FencingToken.of(token.producerId(), (short) (token.producerEpoch() + 1));
    }

    /**
     * {@inheritDoc}
     *
     * @throws CoordinationException naming partition and offset when a malformed record could hide a
     *     newer record of the role
     */
    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        TopicPartition partition = new TopicPartition(TOPIC, partition(role));
        return RecordDecoding.entriesOf(role, readAll(List.of(partition)));
    }

    /** Reads partitions from their beginning to their end offsets with the transport's one consumer. */
    private List<ConsumerRecord<byte[], byte[]>> readAll(List<TopicPartition> partitionsToRead) {
        synchronized (readLock) {
            if (closed) {
                throw new CoordinationException("the transport to " + bootstrap() + " is closed");
            }
            if (reader == null) {
                Map<String, Object> config = new HashMap<>(clientConfig);
                config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
                config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
                config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
                config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
                // a read ends at the end offset; a fetch left waiting for newer records would delay the next read
                config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
                reader = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            }
            try {
                return readAll(reader, partitionsToRead);
            } catch (RuntimeException e) {
                // a consumer in an unknown state is not reused
                reader.close(CloseOptions.timeout(Duration.ZERO));
                reader = null;
                throw e;
            }
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(KafkaConsumer<byte[], byte[]> consumer,
                                                         List<TopicPartition> partitionsToRead) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try {
            consumer.assign(partitionsToRead);
            consumer.seekToBeginning(partitionsToRead);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitionsToRead, timeout);
            long deadline = CLOCK.monotonicNanos() + timeout.toNanos();
            for (TopicPartition partition : partitionsToRead) {
                while (consumer.position(partition, timeout) < end.get(partition)) {
                    if (CLOCK.monotonicNanos() > deadline) {
                        throw new CoordinationException("cannot read " + partition + " to its end offset "
                                + end.get(partition) + " within " + timeout.toMillis() + " ms");
                    }
                    consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                }
            }
            return records;
        } catch (KafkaException e) {
            throw failure("read " + partitionsToRead, e);
        }
    }

    @Override
    public void register(Role role, MemberId member, long atMillis) {
        send(registrations, role, CoordinationKey.registration(role, member),
                CoordinationCodec.encodeValue(new Registration(member, atMillis)), "register " + member);
    }

    @Override
    public void deregister(Role role, MemberId member) {
        send(registrations, role, CoordinationKey.registration(role, member), null, "deregister " + member);
    }

    private void send(KafkaProducer<byte[], byte[]> producer, Role role, CoordinationKey key, byte[] value, String what) {
        try {
            producer.send(new ProducerRecord<>(TOPIC, partition(role), CoordinationCodec.encodeKey(key), value))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (isFenced(e)) {
                throw new FencedException("role '" + role + "': " + what + " was fenced", e);
            }
            throw failure(what + " for role '" + role + "'", e);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Under transaction protocol version 2 the written token is the epoch the coordinator reports
     * once this transaction commits (the minted epoch plus one per commit). When that epoch would be
     * exhausted the coordinator moves to a new producer id this transport cannot predict; that one
     * lease carries the minted token and reads as not current until the next renewal.
     */
    @Override
    public synchronized Lease writeLease(Role role, FencingToken token, Lease lease) {
        if (!lease.token().equals(token)) {
            throw new CoordinationException("the lease names token " + lease.token() + " but is written with token "
                    + token);
        }
        Lease[] written = new Lease[1];
        transact(role, token, "write the lease", (rp, producer) -> {
            written[0] = leaseAfterCommit(rp, lease, token);
            return List.of(sendLease(producer, role, CoordinationCodec.encodeValue(written[0])));
        });
        producers.get(role).lastLease = written[0];
        return written[0];
    }

    /** The lease as written in the next transaction: with the token the coordinator reports once it commits. */
    private static Lease leaseAfterCommit(RoleProducer rp, Lease lease, FencingToken token) {
        return new Lease(lease.member(), rp.nextCommitted.minted() ? rp.nextCommitted : token, lease.grantedAt(),
                lease.deadline());
    }

    @Override
    public synchronized void clearLease(Role role, FencingToken token) {
        transact(role, token, "clear the lease", (rp, producer) -> {
            rp.lastLease = null;
            return List.of(sendLease(producer, role, null));
        });
    }

    private java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> sendLease(
            KafkaProducer<byte[], byte[]> producer, Role role, byte[] value) {
        return producer.send(new ProducerRecord<>(TOPIC, partition(role), CoordinationCodec.encodeKey(
                CoordinationKey.lease(role)), value));
    }

    /**
     * The leader's own code inside one transaction of the role's producer.
     *
     * @param <T> what the code returns
     */
    @FunctionalInterface
    public interface TransactionBody<T> {
        /**
         * Sends the transaction's records.
         *
         * @param transaction the open transaction
         * @return anything the caller wants back
         * @throws Exception a failure, which aborts the transaction
         */
        T run(LeaderTransaction transaction) throws Exception;
    }

    /**
     * Runs the leader's code in one transaction of the role's producer, the one that holds the leadership's
     * epoch: everything it sends (to any topic) and the offsets it commits land together, or not at all, and
     * the brokers refuse them once a successor minted a newer epoch. A {@code read_committed} reader therefore
     * never sees a deposed leader's record after its successor's first, whatever the clocks and pauses did.
     *
     * <p>Under transaction protocol version 2 every commit moves the coordinator's epoch on; the transaction
     * also rewrites the role's lease record (same holder and deadline) with the token that is current once it
     * commits, so {@code describe} keeps reporting the leader as current between renewals. Transactions of a
     * role run one at a time with its lease writes: keep them short, a renewal waits for them.
     *
     * <h4>Example</h4>
     * <pre>{@code
     * transport.inTransaction(leadership, tx -> tx.send(new ProducerRecord<>("invoices", key, value)));
     * }</pre>
     *
     * @param leadership the live leadership whose epoch the records carry
     * @param body the code that sends
     * @param <T> what the code returns
     * @return what the code returned, once the transaction has committed
     * @throws FencedException when the leadership was revoked or superseded: nothing was committed
     * @throws CoordinationException when the transaction failed otherwise: it was aborted (if the body threw an
     *     unchecked exception, that exception is rethrown after the abort)
     */
    public <T> T inTransaction(Leadership leadership, TransactionBody<T> body) {
        Objects.requireNonNull(leadership, "leadership");
        Objects.requireNonNull(body, "body");
        // checked before the transport's lock is taken: a leadership being given back holds its own lock while it
        // waits for the transport's (to clear the lease), so checking it under the transport's lock deadlocked
        leadership.requireLive();
        synchronized (this) {
            return transactionOf(leadership.role(), leadership.token(), body);
        }
    }

    private <T> T transactionOf(Role role, FencingToken token, TransactionBody<T> body) {
        List<Object> result = new ArrayList<>(1);
        transact(role, token, "commit the leader's transaction", (rp, producer) -> {
            List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sends =
                    new ArrayList<>();
            LeaderTransaction transaction = new OpenTransaction(producer, token, sends);
            try {
                result.add(body.run(transaction));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CoordinationException("the leader's transaction for role '" + role + "' failed: "
                        + messageOf(e), e);
            }
            if (transactionsV2 && rp.lastLease != null) {
                Lease refreshed = leaseAfterCommit(rp, rp.lastLease, token);
                sends.add(sendLease(producer, role, CoordinationCodec.encodeValue(refreshed)));
                rp.lastLease = refreshed;
            }
            return sends;
        });
        @SuppressWarnings("unchecked")
        T value = (T) result.get(0);
        return value;
    }

    /** The transaction handed to the leader's code: sends go to the role's producer, nothing else is reachable. */
    private static final class OpenTransaction implements LeaderTransaction {
        private final KafkaProducer<byte[], byte[]> producer;
        private final FencingToken token;
        private final List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sends;

        OpenTransaction(KafkaProducer<byte[], byte[]> producer, FencingToken token,
                        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sends) {
            this.producer = producer;
            this.token = token;
            this.sends = sends;
        }

        @Override
        public FencingToken token() {
            return token;
        }

        @Override
        public java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<byte[], byte[]> record) {
            Objects.requireNonNull(record, "record");
            if (TOPIC.equals(record.topic())) {
                throw new CoordinationException("the leader's records cannot go to " + TOPIC
                        + ": its format is frozen and the transport alone writes it");
            }
            java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> sent = producer.send(record);
            sends.add(sent);
            return sent;
        }

        @Override
        public <K, V> java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<K, V> record, org.apache.kafka.common.serialization.Serializer<K> keySerializer,
                org.apache.kafka.common.serialization.Serializer<V> valueSerializer) {
            Objects.requireNonNull(record, "record");
            byte[] key = record.key() == null ? null : keySerializer.serialize(record.topic(), record.headers(),
                    record.key());
            byte[] value = record.value() == null ? null : valueSerializer.serialize(record.topic(), record.headers(),
                    record.value());
            return send(new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), key, value,
                    record.headers()));
        }

        @Override
        public void sendOffsets(Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets,
                                org.apache.kafka.clients.consumer.ConsumerGroupMetadata group) {
            producer.sendOffsetsToTransaction(offsets, group);
        }
    }

    private interface Sends {
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> send(
                RoleProducer producer, KafkaProducer<byte[], byte[]> kafka);
    }

    /** One transaction of the role's producer: begin, send, commit; abort on failure. */
    private void transact(Role role, FencingToken token, String what, Sends sends) {
        RoleProducer rp = producers.get(role);
        if (rp == null || !rp.minted.equals(token)) {
            throw new FencedException("role '" + role + "': token " + token + " is not the epoch this transport "
                    + "holds for the role; it was superseded");
        }
        KafkaProducer<byte[], byte[]> producer = rp.producer;
        Lease leaseBefore = rp.lastLease;
        try {
            producer.beginTransaction();
            for (java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> sent
                    : sends.send(rp, producer)) {
                sent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            producer.commitTransaction();
        } catch (Exception e) {
            rp.lastLease = leaseBefore;
            if (isFenced(e)) {
                fenced(role, rp);
                throw new FencedException("role '" + role + "': the broker fenced token " + token + " while trying to "
                        + what, e);
            }
            try {
                producer.abortTransaction();
            } catch (RuntimeException abortFailure) {
                if (isFenced(abortFailure)) {
                    fenced(role, rp);
                    throw new FencedException("role '" + role + "': the broker fenced token " + token
                            + " while aborting", abortFailure);
                }
                fenced(role, rp);
                throw failure(what + " for role '" + role + "' (the producer is closed; mint a new epoch)", e);
            }
            if (e instanceof RuntimeException runtime && !(e instanceof KafkaException)) {
                throw runtime; // the leader's own code failed: the transaction is aborted, its exception stands
            }
            throw failure(what + " for role '" + role + "'", e);
        }
        // commitTransaction returns once the coordinator has logged the commit; the markers reach the
        // partition after that. Waiting until the coordinator reports the transaction settled makes this
        // write visible to every read_committed reader once this method returns, and reads back the pair
        // the coordinator reports now: the base of the next prediction, even after a move to a new producer id.
        FencingToken predicted = rp.nextCommitted.minted() ? afterCommit(rp.nextCommitted) : FencingToken.NO_EPOCH;
        try {
            Optional<FencingToken> settled = describeSettled(role);
            if (transactionsV2) {
                rp.nextCommitted = settled.map(this::afterCommit).orElse(FencingToken.NO_EPOCH);
            }
        } catch (CoordinationException slow) {
            // the commit stands; only the read-back failed, so the next lease carries the prediction
            if (transactionsV2) {
                rp.nextCommitted = predicted;
            }
        }
    }

    private void fenced(Role role, RoleProducer rp) {
        producers.remove(role, rp);
        rp.producer.close(Duration.ZERO);
    }

    private static boolean isFenced(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Optional<FencingToken> describe(Role role) {
        return describeSettled(role);
    }

    /**
     * Reads the coordinator's pair, waiting (up to the timeout) for a commit or abort that is still completing.
     * Each question is bounded by the request timeout and asked again, up to the timeout, when it times out: the
     * admin client waits on a coordinator lookup sent to a silent broker for the whole bound of its call, not its
     * request timeout, so one question with the call's bound stayed with a broker cut off for the whole timeout.
     */
    private Optional<FencingToken> describeSettled(Role role) {
        long deadline = CLOCK.monotonicNanos() + timeout.toNanos();
        for (;;) {
            TransactionDescription description;
            try {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - CLOCK.monotonicNanos());
                int attempt = (int) Math.max(1, Math.min(requestTimeoutMillis, left));
                description = admin.describeTransactions(List.of(role.name()),
                                new DescribeTransactionsOptions().timeoutMs(attempt)).description(role.name())
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TransactionalIdNotFoundException) {
                    return Optional.empty();
                }
                if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException
                        && CLOCK.monotonicNanos() - deadline < 0) {
                    continue; // another broker may answer: the cluster moves a silent one's coordinators
                }
                throw failure("describe the transactions of role '" + role + "'", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failure("describe the transactions of role '" + role + "'", e);
            } catch (TimeoutException e) {
                throw failure("describe the transactions of role '" + role + "'", e);
            }
            TransactionState state = description.state();
            if (state != TransactionState.PREPARE_COMMIT && state != TransactionState.PREPARE_ABORT) {
                // a negative producer id or epoch means the coordinator holds no producer: no token
                return RecordDecoding.tokenOf(description);
            }
            if (CLOCK.monotonicNanos() - deadline > 0) {
                throw new CoordinationException("the transaction of role '" + role + "' stayed in state " + state
                        + " for " + timeout.toMillis() + " ms");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    @Override
    public Set<Role> roles() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(TOPIC, p));
        }
        return RecordDecoding.rolesOf(readAll(all));
    }

    private CoordinationException failure(String what, Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof TimeoutException || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return new CoordinationException("cannot " + what + " on " + bootstrap() + " within " + timeout.toMillis()
                    + " ms: " + messageOf(cause), cause);
        }
        return new CoordinationException("cannot " + what + " on " + bootstrap() + ": " + messageOf(cause), cause);
    }

    private static Throwable rootCause(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String messageOf(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message.replace('\n', ' ');
    }

    @Override
    public synchronized void close() {
        synchronized (readLock) {
            closed = true;
            if (reader != null) {
                reader.close(CloseOptions.timeout(Duration.ZERO));
                reader = null;
            }
        }
        producers.values().forEach(rp -> rp.producer.close(Duration.ZERO));
        producers.clear();
        registrations.close(Duration.ZERO);
        admin.close(Duration.ZERO);
    }
}
