package dev.cosid.coordination.kafka;

import dev.cosid.coordination.CoordinationCodec;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationKey;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Registration;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RolePartitioner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
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
 * versions.
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
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final dev.cosid.time.Clock CLOCK = dev.cosid.time.Clock.system();

    private final Map<String, Object> clientConfig;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> registrations;
    private final int partitions;
    private final Duration transactionTimeout;
    private final boolean transactionsV2;
    private final Map<Role, RoleProducer> producers = new HashMap<>();

    /** A role's transactional producer, bound to its epoch for life. */
    private static final class RoleProducer {
        final KafkaProducer<byte[], byte[]> producer;
        final FencingToken minted;
        /** The token the coordinator will report once the next transaction commits. */
        FencingToken nextCommitted;

        RoleProducer(KafkaProducer<byte[], byte[]> producer, FencingToken minted, FencingToken nextCommitted) {
            this.producer = producer;
            this.minted = minted;
            this.nextCommitted = nextCommitted;
        }
    }

    private KafkaCoordinationTransport(Map<String, Object> clientConfig, int replicationFactor, Duration leaseDuration) {
        this.clientConfig = Map.copyOf(clientConfig);
        this.partitions = RolePartitioner.DEFAULT_PARTITIONS;
        this.transactionTimeout = leaseDuration.compareTo(Duration.ofMinutes(1)) > 0 ? leaseDuration
                : Duration.ofMinutes(1);
        Map<String, Object> adminConfig = new HashMap<>(clientConfig);
        adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        this.admin = Admin.create(adminConfig);
        try {
            ensureTopic(replicationFactor);
            this.transactionsV2 = transactionVersion() >= 2;
            Map<String, Object> config = new HashMap<>(clientConfig);
            config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            config.put(ProducerConfig.ACKS_CONFIG, "all");
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
            this.registrations = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        } catch (RuntimeException e) {
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * Connects to a cluster, creating the topic if it is missing.
     *
     * @param bootstrapServers {@code host:port[,host:port...]}
     * @param replicationFactor the replication factor of a topic this transport creates (3 in production)
     * @return the transport
     * @throws CoordinationException when the cluster cannot be reached or the topic is not compacted
     */
    public static KafkaCoordinationTransport create(String bootstrapServers, int replicationFactor) {
        return create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), replicationFactor,
                Duration.ofSeconds(30));
    }

    /**
     * Connects to a cluster with client settings.
     *
     * @param clientConfig Kafka client settings, at least {@code bootstrap.servers}
     * @param replicationFactor the replication factor of a topic this transport creates
     * @param leaseDuration the lease duration; transactions time out no sooner
     * @return the transport
     */
    public static KafkaCoordinationTransport create(Map<String, Object> clientConfig, int replicationFactor,
                                                    Duration leaseDuration) {
        return new KafkaCoordinationTransport(clientConfig, replicationFactor, leaseDuration);
    }

    /** Reports whether the cluster runs transaction protocol version 2. */
    public boolean transactionsV2() {
        return transactionsV2;
    }

    private short transactionVersion() {
        try {
            FeatureMetadata features = admin.describeFeatures().featureMetadata().get(TIMEOUT.toMillis(),
                    TimeUnit.MILLISECONDS);
            FinalizedVersionRange range = features.finalizedFeatures().get("transaction.version");
            return range == null ? 0 : range.maxVersionLevel();
        } catch (Exception e) {
            throw failure("read the cluster's transaction version", e);
        }
    }

    private void ensureTopic(int replicationFactor) {
        try {
            NewTopic topic = new NewTopic(TOPIC, partitions, (short) replicationFactor)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            admin.createTopics(List.of(topic)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw failure("create the topic " + TOPIC, e);
            }
        } catch (Exception e) {
            throw failure("create the topic " + TOPIC, e);
        }
        try {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            Config config = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .get(resource);
            String policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
            if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
                throw new CoordinationException("the topic " + TOPIC + " has cleanup.policy=" + policy
                        + "; it must be compact, or the latest lease and registrations are deleted");
            }
        } catch (CoordinationException e) {
            throw e;
        } catch (Exception e) {
            throw failure("describe the topic " + TOPIC, e);
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
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
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

    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        TopicPartition partition = new TopicPartition(TOPIC, partition(role));
        List<CoordinationEntry> entries = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(List.of(partition))) {
            decode(record).filter(entry -> entry.key().role().equals(role)).ifPresent(entries::add);
        }
        return entries;
    }

    private static Optional<CoordinationEntry> decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            CoordinationKey key = CoordinationCodec.decodeKey(record.key());
            return Optional.of(new CoordinationEntry(record.offset(), key,
                    CoordinationCodec.decodeValue(key.kind(), record.value())));
        } catch (CoordinationException malformed) {
            // another client's malformed record says nothing about this role
            return Optional.empty();
        }
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(List<TopicPartition> partitionsToRead) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(partitionsToRead);
            consumer.seekToBeginning(partitionsToRead);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitionsToRead, TIMEOUT);
            long deadline = CLOCK.monotonicNanos() + TIMEOUT.toNanos();
            for (TopicPartition partition : partitionsToRead) {
                while (consumer.position(partition, TIMEOUT) < end.get(partition)) {
                    if (CLOCK.monotonicNanos() > deadline) {
                        throw new CoordinationException("cannot read " + partition + " to its end offset "
                                + end.get(partition) + " within " + TIMEOUT.toMillis() + " ms");
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

    private void send(KafkaProducer<byte[], byte[]> producer, Role role, CoordinationKey key, byte[] value, String what) {
        try {
            producer.send(new ProducerRecord<>(TOPIC, partition(role), CoordinationCodec.encodeKey(key), value))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (isFenced(e)) {
                throw new FencedException("role '" + role + "': " + what + " was fenced", e);
            }
            throw failure(what + " for role '" + role + "'", e);
        }
    }

    @Override
    public synchronized void writeLease(Role role, FencingToken token, Lease lease) {
        transact(role, token, "write the lease", rp -> {
            Lease written = new Lease(lease.member(), rp.nextCommitted.minted() ? rp.nextCommitted : token,
                    lease.grantedAt(), lease.deadline());
            return CoordinationCodec.encodeValue(written);
        });
    }

    @Override
    public synchronized void clearLease(Role role, FencingToken token) {
        transact(role, token, "clear the lease", rp -> null);
    }

    private interface ValueFor {
        byte[] value(RoleProducer producer);
    }

    /** One transaction of the role's producer: begin, send to the pinned partition, commit; abort on failure. */
    private void transact(Role role, FencingToken token, String what, ValueFor valueFor) {
        RoleProducer rp = producers.get(role);
        if (rp == null || !rp.minted.equals(token)) {
            throw new FencedException("role '" + role + "': token " + token + " is not the epoch this transport "
                    + "holds for the role; it was superseded");
        }
        KafkaProducer<byte[], byte[]> producer = rp.producer;
        try {
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, partition(role), CoordinationCodec.encodeKey(
                    CoordinationKey.lease(role)), valueFor.value(rp))).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            producer.commitTransaction();
        } catch (Exception e) {
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
            throw failure(what + " for role '" + role + "'", e);
        }
        if (transactionsV2) {
            rp.nextCommitted = rp.nextCommitted.minted() && rp.nextCommitted.producerEpoch() < Short.MAX_VALUE - 1
                    ? afterCommit(rp.nextCommitted)
                    : describeSettled(role).map(this::afterCommit).orElse(FencingToken.NO_EPOCH);
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

    /** Reads the coordinator's pair, waiting out a commit or abort that is still completing. */
    private Optional<FencingToken> describeSettled(Role role) {
        for (int attempt = 0; attempt < 50; attempt++) {
            TransactionDescription description;
            try {
                description = admin.describeTransactions(List.of(role.name())).description(role.name())
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TransactionalIdNotFoundException) {
                    return Optional.empty();
                }
                throw failure("describe the transactions of role '" + role + "'", e);
            } catch (Exception e) {
                throw failure("describe the transactions of role '" + role + "'", e);
            }
            TransactionState state = description.state();
            if (state != TransactionState.PREPARE_COMMIT && state != TransactionState.PREPARE_ABORT) {
                return Optional.of(FencingToken.of(description.producerId(), (short) description.producerEpoch()));
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        throw new CoordinationException("the transaction of role '" + role + "' stayed in a prepare state");
    }

    @Override
    public Set<Role> roles() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(TOPIC, p));
        }
        Set<Role> roles = new TreeSet<>();
        for (ConsumerRecord<byte[], byte[]> record : readAll(all)) {
            decode(record).ifPresent(entry -> roles.add(entry.key().role()));
        }
        return roles;
    }

    private CoordinationException failure(String what, Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return new CoordinationException("cannot " + what + " on " + clientConfig.get(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) + ": " + cause, cause);
    }

    @Override
    public synchronized void close() {
        producers.values().forEach(rp -> rp.producer.close(Duration.ZERO));
        producers.clear();
        registrations.close(Duration.ZERO);
        admin.close(Duration.ZERO);
    }
}
