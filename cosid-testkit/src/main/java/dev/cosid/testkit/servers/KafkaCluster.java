package dev.cosid.testkit.servers;

import dev.cosid.testkit.ChildJvm;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * A Kafka cluster of its own: one or three KRaft nodes, each a broker and a controller in a child JVM that runs
 * {@code kafka.Kafka} on a configuration file of its own after {@code kafka.tools.StorageTool format} (through
 * {@link KafkaNodeMain}), with its own data directory and free ports. A node is a process, so SIGKILL, SIGSTOP and a
 * cut network are real, as they are not for Kafka's in-process test kit.
 *
 * <p><b>Class path.</b> The nodes run on the test's own class path, which must hold the Kafka server jars of the
 * version the tests use ({@code kafka_2.13}, which {@code org.apache.kafka:kafka-test-common-runtime} brings in,
 * test-scoped); without them the calling test is skipped, or fails under {@code COSID_REQUIRE_SERVERS=true}. The test
 * kit itself needs only {@code kafka-clients}, an optional dependency. With {@code slf4j-simple} on the class path
 * each node logs at INFO to {@code kafka.log} in its directory (a test's own {@code simplelogger.properties} does
 * not quiet it); a node that fails to start keeps its directory, and the message carries the last lines.
 *
 * <p><b>Settings.</b> With three nodes every topic (the internal ones, {@code __coordination_state}, the topics a
 * test creates) has replication factor 3 and {@code min.insync.replicas=2}; with one, 1 and 1. Few partitions
 * ({@value #TRANSACTION_STATE_PARTITIONS} of {@code __transaction_state}, 2 of {@code __consumer_offsets}), small
 * heaps, a broker session of {@value #SESSION_TIMEOUT_MS} ms (heartbeats every 500 ms), so that a killed or cut-off
 * broker is fenced and its partitions move within seconds. A node's own clients give up on a silent peer within
 * seconds too (connection setup 1 s, requests to the controller 5 s): after the active controller is cut off, the
 * first request each broker forwards to it (a client's CreateTopics, say) still waits those 5 s before the broker
 * turns to the new controller, as Kafka does in production with longer bounds. Leaders are never moved back to
 * their preferred replica, so that a test's {@link #leaderOf(String, int)} stays true until the test itself strikes.
 * {@code __transaction_state} is created during the start, so that a test knows its leaders before any client
 * minted an epoch.
 *
 * <p><b>Ready.</b> The cluster, and a node restarted, count as ready only when every node runs, the controller
 * quorum has a leader and every voter has caught up with the log as it stood when the wait began, every broker is
 * registered and unfenced, every transaction coordinator has loaded its partitions, and every partition of every
 * topic (the internal ones too) has a leader and its full set of replicas in sync. Each wait has a bound.
 *
 * <p><b>Networks.</b> Placed on hosts of a {@link StarNetwork}, node {@code n} runs on the {@code n}-th host given,
 * listens and advertises there ({@link #bootstrapServers()}, for clients on any host and for the test's own JVM,
 * which is on the star too), and votes there: cutting its host cuts it off from the other nodes and from every
 * client. It also has a listener on its control address ({@link #controlBootstrapServers()}), which no cut touches,
 * for a test that must still reach a node it cut off.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (KafkaCluster kafka = KafkaCluster.started(3)) {
 *     int p = kafka.transactionStatePartition("controller");
 *     int leader = kafka.leaderOf(KafkaCluster.TRANSACTION_STATE, p);
 *     kafka.kill(leader);     // SIGKILL: the other two fence it and elect new leaders
 *     kafka.restart(leader);  // back on its data, every ISR full again
 * }
 * }</pre>
 */
public final class KafkaCluster extends ServerProcess {

    /** The topic of the transaction coordinators' state. */
    public static final String TRANSACTION_STATE = "__transaction_state";
    /** The partitions of {@value #TRANSACTION_STATE} ({@code transaction.state.log.num.partitions}). */
    public static final int TRANSACTION_STATE_PARTITIONS = 4;
    /** How long a broker may miss heartbeats before the controller fences it ({@code broker.session.timeout.ms}). */
    public static final int SESSION_TIMEOUT_MS = 4000;
    /** How long one question to the cluster, and {@link #leaderOf(String, int)}, may take. */
    private static final Duration CALL_BOUND = Duration.ofSeconds(5);
    private static final Duration LEADER_BOUND = Duration.ofSeconds(30);
    private static final Clock CLOCK = Clock.system();

    private final List<KafkaNode> nodes = new ArrayList<>();
    private final StarNetwork network;
    private String clusterId;
    private Admin admin;
    private boolean running;

    private KafkaCluster(int size, StarNetwork network, List<StarNetwork.Host> hosts) {
        super("kafka-cluster", Path.of("target", "servers"));
        this.network = network;
        for (int id = 1; id <= size; id++) {
            nodes.add(new KafkaNode(this, id, hosts == null ? null : hosts.get(id - 1)));
        }
    }

    /**
     * Starts a cluster on loopback addresses and waits until it is ready, or skips the calling test when the Kafka
     * server jars are not on the class path.
     *
     * @param size 1 or 3
     * @return the ready cluster
     * @throws IllegalArgumentException for another size
     */
    public static KafkaCluster started(int size) {
        requireSize(size);
        requireServerJars();
        return start(new KafkaCluster(size, null, null));
    }

    /**
     * Starts a cluster with node {@code n} on {@code hosts.get(n - 1)} of a star network, and waits until it is
     * ready; skips the calling test when the Kafka server jars are not on the class path.
     *
     * @param network the star the hosts belong to; it kills the nodes too when it closes
     * @param hosts one host per node, 1 or 3 of them, each used once
     * @return the ready cluster
     * @throws IllegalArgumentException for another number of hosts, or a host used twice
     */
    public static KafkaCluster started(StarNetwork network, List<StarNetwork.Host> hosts) {
        requireSize(hosts.size());
        if (Set.copyOf(hosts).size() != hosts.size()) {
            throw new IllegalArgumentException("each node needs a host of its own: " + hosts);
        }
        hosts.forEach(network::requireOwn);
        requireServerJars();
        return start(new KafkaCluster(hosts.size(), network, List.copyOf(hosts)));
    }

    private static KafkaCluster start(KafkaCluster cluster) {
        try {
            cluster.firstStart();
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    private static void requireSize(int size) {
        if (size != 1 && size != 3) {
            throw new IllegalArgumentException("a cluster of " + size + " nodes; 1 or 3 are supported");
        }
    }

    private static void requireServerJars() {
        try {
            Class.forName("kafka.Kafka", false, KafkaCluster.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            String message = "the Kafka server jars (kafka.Kafka) are not on the test class path: add "
                    + "org.apache.kafka:kafka-test-common-runtime or kafka_2.13 test-scoped";
            if (Servers.required()) {
                Assertions.fail(message + " (COSID_REQUIRE_SERVERS=true)");
            }
            Assumptions.abort(message + "; skipping");
        }
    }

    /** Returns the number of nodes. */
    public int size() {
        return nodes.size();
    }

    /** Returns the node ids, 1 to {@link #size()}. */
    public List<Integer> nodeIds() {
        return nodes.stream().map(node -> node.id).collect(Collectors.toList());
    }

    /**
     * Returns what clients connect to: every node's client listener, on loopback or on the star. A node cut off from
     * the star is cut off from these clients too.
     *
     * @return {@code host:port,host:port,...}
     */
    public String bootstrapServers() {
        return nodes.stream().map(node -> node.host() + ":" + node.port()).collect(Collectors.joining(","));
    }

    /**
     * Returns one node's client listener, as clients reach it.
     *
     * @param node a node id
     * @return {@code host:port}
     */
    public String endpointOf(int node) {
        KafkaNode found = node(node);
        return found.host() + ":" + found.port();
    }

    /**
     * Returns what the test connects to when it must reach every node, cut off or not: the listeners on the nodes'
     * control addresses (the same as {@link #bootstrapServers()} on loopback). A node cut off from the others still
     * answers here, from its own stale view of the cluster.
     *
     * @return {@code host:port,host:port,...}
     */
    public String controlBootstrapServers() {
        return nodes.stream().map(KafkaNode::controlEndpoint).collect(Collectors.joining(","));
    }

    /**
     * Returns the host a node runs on.
     *
     * @param node a node id
     * @return its host of the star
     * @throws IllegalStateException when the cluster runs on loopback
     */
    public StarNetwork.Host hostOf(int node) {
        StarNetwork.Host host = node(node).host;
        if (host == null) {
            throw new IllegalStateException(this + " runs on loopback, not on a star network");
        }
        return host;
    }

    /**
     * Returns the partition of {@value #TRANSACTION_STATE} whose leader is the transaction coordinator of a
     * transactional id in this cluster.
     *
     * @param transactionalId the transactional id (a role's name, for the coordination transport)
     * @return 0 to {@value #TRANSACTION_STATE_PARTITIONS} - 1
     */
    public int transactionStatePartition(String transactionalId) {
        return transactionStatePartition(transactionalId, TRANSACTION_STATE_PARTITIONS);
    }

    /**
     * Returns the partition of {@value #TRANSACTION_STATE} that holds a transactional id, by Kafka's own rule:
     * {@code Utils.abs(transactionalId.hashCode()) % transaction.state.log.num.partitions}, as
     * {@code kafka.coordinator.transaction.TransactionStateManager.partitionFor} computes it in Kafka 4.1
     * ({@code core/src/main/scala/kafka/coordinator/transaction/TransactionStateManager.scala}; checked in the
     * bytecode of {@code kafka_2.13-4.1.1.jar}). {@code Utils.abs} maps {@code Integer.MIN_VALUE} to 0, where
     * {@code Math.abs} would stay negative. This is {@code String.hashCode}, not the murmur2 of the producer's
     * partitioner.
     *
     * @param transactionalId the transactional id
     * @param partitions {@code transaction.state.log.num.partitions}
     * @return the partition
     */
    public static int transactionStatePartition(String transactionalId, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions " + partitions + " is not positive");
        }
        return Utils.abs(transactionalId.hashCode()) % partitions;
    }

    /**
     * Returns the node that leads a partition now, as the cluster's metadata says, waiting (up to 30 s) while the
     * partition has no leader or the topic is not known yet. A broker that was killed or cut off is named until the
     * controller has fenced it ({@value #SESSION_TIMEOUT_MS} ms); wait for another answer with {@code Await}.
     *
     * @param topic the topic, e.g. {@value #TRANSACTION_STATE} or {@code __coordination_state}
     * @param partition the partition
     * @return the leader's node id
     * @throws IllegalStateException when no leader is known within the bound
     */
    public int leaderOf(String topic, int partition) {
        return describe(topic, partition, "a leader", info -> {
            Node leader = info.leader();
            return leader != null && leader.id() >= 0 ? leader.id() : null;
        });
    }

    /**
     * Returns the nodes in sync for a partition now, as the cluster's metadata says, waiting (up to 30 s) while the
     * topic is not known yet or no node answers: a question sent to a node that was cut off goes to another one.
     *
     * @param topic the topic
     * @param partition the partition
     * @return the in-sync replicas' node ids, in ascending order
     * @throws IllegalStateException when no node answers within the bound
     */
    public List<Integer> inSyncReplicas(String topic, int partition) {
        return describe(topic, partition, "the in-sync replicas",
                info -> info.isr().stream().map(Node::id).sorted().collect(Collectors.toList()));
    }

    /** Asks the cluster about one partition until the answer is not null, up to 30 s. */
    private <T> T describe(String topic, int partition, String what, Function<TopicPartitionInfo, T> answer) {
        long deadline = CLOCK.monotonicNanos() + LEADER_BOUND.toNanos();
        String seen;
        do {
            try {
                TopicDescription description = admin().describeTopics(List.of(topic)).allTopicNames()
                        .get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS).get(topic);
                if (partition < 0 || partition >= description.partitions().size()) {
                    throw new IllegalArgumentException(topic + " has no partition " + partition + ", only "
                            + description.partitions().size());
                }
                T found = answer.apply(description.partitions().get(partition));
                if (found != null) {
                    return found;
                }
                seen = "none yet";
            } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
                seen = messageOf(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while asking " + this + " for " + what, e);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        } while (CLOCK.monotonicNanos() - deadline < 0);
        throw new IllegalStateException("no answer naming " + what + " of " + topic + "-" + partition + " from " + this
                + " within " + LEADER_BOUND.toSeconds() + " s: " + seen);
    }

    /**
     * Kills a node with SIGKILL, as a crash would; {@link #restart(int)} brings it back on its data.
     *
     * @param node a node id
     */
    public synchronized void kill(int node) {
        node(node).kill();
    }

    /**
     * Freezes a node with SIGSTOP: its connections stay open and it answers nothing.
     *
     * @param node a node id
     */
    public synchronized void pause(int node) {
        node(node).pause();
    }

    /**
     * Thaws a node with SIGCONT; {@link #awaitReady()} waits until it has caught up again.
     *
     * @param node a node id
     */
    public synchronized void resume(int node) {
        node(node).resume();
    }

    /**
     * Stops a node cleanly (SIGTERM: a controlled shutdown moves its leaderships first), unless it is killed
     * already, then starts it again on its data and waits until the whole cluster is ready: it has rejoined the
     * quorum and registered, and every partition's set of in-sync replicas is full again.
     *
     * @param node a node id
     */
    public synchronized void restart(int node) {
        KafkaNode restarted = node(node);
        restarted.stop();
        restarted.start();
        awaitReady("node " + node + " rejoining");
    }

    /**
     * Waits until the cluster is ready again (see the class's description), after a resume or a healed cut.
     *
     * @throws IllegalStateException when a node is not running, or the cluster is not ready within 60 s
     */
    public void awaitReady() {
        awaitReady("the cluster being ready");
    }

    private synchronized KafkaNode node(int id) {
        if (id < 1 || id > nodes.size()) {
            throw new IllegalArgumentException("no node " + id + " in " + this + "; the nodes are 1 to "
                    + nodes.size());
        }
        return nodes.get(id - 1);
    }

    @Override
    protected void initialize() throws IOException {
        clusterId = Uuid.randomUuid().toString();
        for (KafkaNode node : nodes) {
            node.initialize();
        }
    }

    @Override
    protected Process launch() {
        throw new UnsupportedOperationException("a cluster starts its nodes");
    }

    @Override
    protected boolean ready() {
        return running;
    }

    @Override
    protected List<Long> pids() {
        return nodes.stream().flatMap(node -> node.pids().stream()).collect(Collectors.toList());
    }

    /** Starts every node at once (none is ready before a quorum forms), then waits until the cluster is ready. */
    @Override
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException(this + " is already running");
        }
        for (KafkaNode node : nodes) {
            node.start();
        }
        running = true;
        awaitReady("the cluster's start");
    }

    /** Stops every node cleanly at once, then kills those still running after 30 s. */
    @Override
    public synchronized void stop() {
        closeAdmin();
        List<KafkaNode> up = nodes.stream().filter(node -> node.process != null).collect(Collectors.toList());
        pauseTogether(up, false); // a paused node cannot shut down
        signal("TERM", up.stream().map(node -> node.process.pid()).collect(Collectors.toList()));
        up.forEach(KafkaNode::stop); // waits for each, killing it after its bound
        running = false;
    }

    @Override
    public synchronized void kill() {
        closeAdmin();
        nodes.forEach(KafkaNode::kill);
        running = false;
    }

    /** Freezes every node with one signal, so that none sees the others fall silent first. */
    @Override
    public synchronized void pause() {
        pauseTogether(nodes.stream().filter(node -> node.process != null).collect(Collectors.toList()), true);
    }

    @Override
    public synchronized void resume() {
        pauseTogether(nodes.stream().filter(node -> node.process != null).collect(Collectors.toList()), false);
    }

    @Override
    protected void deleteData() {
        nodes.forEach(KafkaNode::deleteData);
    }

    /** Kills every node (the data goes with the directory), then deletes the cluster's directory. */
    @Override
    public synchronized void close() {
        kill();
        nodes.forEach(KafkaNode::close);
        super.close();
    }

    private void closeAdmin() {
        if (admin != null) {
            admin.close(Duration.ZERO);
            admin = null;
        }
    }

    /** The cluster's own admin client: short bounds, so that a dead or frozen node costs one question, not many. */
    private synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new HashMap<>();
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "cosid-kafka-cluster");
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_BOUND.toMillis());
            config.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000L);
            config.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 3000L);
            config.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000L);
            config.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 1000L);
            admin = Admin.create(config);
        }
        return admin;
    }

    /**
     * Waits until the cluster is ready, failing at once when a node's process ends and after the bound otherwise;
     * either failure keeps the directories and carries the nodes' last log lines.
     */
    private void awaitReady(String what) {
        long deadline = CLOCK.monotonicNanos() + READY_TIMEOUT.toNanos();
        Readiness readiness = new Readiness();
        for (;;) {
            for (KafkaNode node : nodes) {
                if (node.process == null) {
                    throw new IllegalStateException("node " + node.id + " of " + this + " is not running; restart it "
                            + "before waiting for " + what);
                }
                if (!node.process.isAlive()) {
                    throw new IllegalStateException("node " + node.id + " of " + this + " exited with "
                            + node.process.exitValue() + " while waiting for " + what + kept("") + node.kept(""));
                }
            }
            String missing = readiness.missing();
            if (missing.isEmpty()) {
                return;
            }
            if (CLOCK.monotonicNanos() - deadline > 0) {
                StringBuilder logs = new StringBuilder();
                nodes.forEach(node -> logs.append(node.kept("")));
                throw new IllegalStateException(this + " was not ready within " + READY_TIMEOUT.toSeconds()
                        + " s, waiting for " + what + kept(missing) + logs);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** One wait's questions to the cluster; remembers the log end the voters must reach. */
    private final class Readiness {

        private long quorumTarget = -1;

        /** Returns what is missing, or empty when the cluster is ready. */
        String missing() {
            // a node starting up refuses connections; an admin call would wait its whole bound for it
            String silent = nodes.stream().filter(node -> !node.listening()).map(node -> String.valueOf(node.id))
                    .collect(Collectors.joining(", "));
            if (!silent.isEmpty()) {
                return "nodes " + silent + " do not listen on their client ports yet";
            }
            try {
                String missing = quorum();
                if (missing.isEmpty()) {
                    missing = brokers();
                }
                if (missing.isEmpty()) {
                    missing = transactionCoordinators();
                }
                return missing.isEmpty() ? partitions() : missing;
            } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
                return "the cluster does not answer: " + messageOf(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + KafkaCluster.this, e);
            }
        }

        private String quorum() throws ExecutionException, InterruptedException, TimeoutException {
            QuorumInfo quorum = admin().describeMetadataQuorum().quorumInfo().get(CALL_BOUND.toMillis(),
                    TimeUnit.MILLISECONDS);
            if (quorum.leaderId() < 0) {
                return "no controller leads the quorum";
            }
            if (quorumTarget < 0) {
                quorumTarget = quorum.highWatermark();
            }
            Set<Integer> behind = new TreeSet<>(nodeIds());
            for (QuorumInfo.ReplicaState voter : quorum.voters()) {
                if (voter.logEndOffset() >= quorumTarget) {
                    behind.remove(voter.replicaId());
                }
            }
            return behind.isEmpty() ? "" : "controllers " + behind + " have not caught up with the metadata log to "
                    + "offset " + quorumTarget;
        }

        private String brokers() throws ExecutionException, InterruptedException, TimeoutException {
            Collection<Node> unfenced = admin().describeCluster().nodes().get(CALL_BOUND.toMillis(),
                    TimeUnit.MILLISECONDS);
            Set<Integer> missing = new TreeSet<>(nodeIds());
            unfenced.forEach(node -> missing.remove(node.id()));
            return missing.isEmpty() ? "" : "brokers " + missing + " are not registered and unfenced";
        }

        /** Creates {@value #TRANSACTION_STATE} (a coordinator lookup does); every coordinator must have loaded it. */
        private String transactionCoordinators() throws InterruptedException, TimeoutException {
            try {
                admin().describeTransactions(List.of("cosid-kafka-cluster-ready")).all()
                        .get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
                    return "no transaction coordinator answers: " + messageOf(e);
                }
            }
            try {
                admin().listTransactions().all().get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
                return "";
            } catch (ExecutionException e) {
                return "the transaction coordinators have not loaded their state: " + messageOf(e);
            }
        }

        private String partitions() throws ExecutionException, InterruptedException, TimeoutException {
            Set<String> topics = admin().listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            if (!topics.contains(TRANSACTION_STATE)) {
                return TRANSACTION_STATE + " does not exist yet";
            }
            Map<String, TopicDescription> descriptions = admin().describeTopics(topics).allTopicNames()
                    .get(CALL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
            Map<String, String> lagging = new LinkedHashMap<>();
            for (TopicDescription topic : descriptions.values()) {
                for (TopicPartitionInfo partition : topic.partitions()) {
                    if (partition.leader() == null || partition.leader().id() < 0) {
                        lagging.put(topic.name() + "-" + partition.partition(), "no leader");
                    } else if (!Set.copyOf(ids(partition.isr())).equals(Set.copyOf(ids(partition.replicas())))) {
                        lagging.put(topic.name() + "-" + partition.partition(), "in sync " + ids(partition.isr())
                                + " of " + ids(partition.replicas()));
                    }
                }
            }
            if (lagging.isEmpty()) {
                return "";
            }
            return lagging.size() + " partitions lack a leader or a full ISR, e.g. " + lagging.entrySet().stream()
                    .limit(3).map(entry -> entry.getKey() + ": " + entry.getValue())
                    .collect(Collectors.joining(", "));
        }

        private List<Integer> ids(List<Node> replicas) {
            return replicas.stream().map(Node::id).collect(Collectors.toList());
        }
    }

    private static String messageOf(Throwable e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message.replace('\n', ' '));
    }

    @Override
    public String toString() {
        return "KafkaCluster[" + bootstrapServers() + ", " + home + "]";
    }

    /** One node: a broker and a controller in one child JVM. */
    private static final class KafkaNode extends ServerProcess {

        private final KafkaCluster cluster;
        private final int id;
        private final StarNetwork.Host host;
        private final int controllerPort = freePort();
        /** The listener on the control address, for a placed node; the client listener serves loopback. */
        private final int controlPort;
        /** Whether the next start formats the log directory first (a first start, or after its data was deleted). */
        private boolean format;

        KafkaNode(KafkaCluster cluster, int id, StarNetwork.Host host) {
            super("node-" + id, cluster.home, host);
            this.cluster = cluster;
            this.id = id;
            this.host = host;
            this.controlPort = host == null ? port : freePort();
        }

        /** Reports whether the client listener accepts a connection, as a client on the star or loopback makes it. */
        boolean listening() {
            try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress(host(), port), 500);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        String controlEndpoint() {
            return controlHost() + ":" + controlPort;
        }

        private Path config() {
            return home.resolve("server.properties");
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(dataDir());
            int size = cluster.nodes.size();
            int minInSync = Math.min(2, size);
            String voters = cluster.nodes.stream().map(node -> node.id + "@" + node.host() + ":" + node.controllerPort)
                    .collect(Collectors.joining(","));
            Map<String, Object> settings = new LinkedHashMap<>();
            settings.put("process.roles", "broker,controller");
            settings.put("node.id", id);
            settings.put("controller.quorum.voters", voters);
            settings.put("controller.listener.names", "CONTROLLER");
            settings.put("inter.broker.listener.name", "CLIENT");
            if (host == null) {
                settings.put("listeners", "CLIENT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
                settings.put("advertised.listeners", "CLIENT://127.0.0.1:" + port);
            } else {
                settings.put("listeners", "CLIENT://" + host.address() + ":" + port + ",CONTROLLER://" + host.address()
                        + ":" + controllerPort + ",CONTROL://" + host.controlAddress() + ":" + controlPort);
                settings.put("advertised.listeners", "CLIENT://" + host.address() + ":" + port + ",CONTROL://"
                        + host.controlAddress() + ":" + controlPort);
            }
            settings.put("listener.security.protocol.map", "CLIENT:PLAINTEXT,CONTROLLER:PLAINTEXT,CONTROL:PLAINTEXT");
            settings.put("log.dirs", dataDir().toAbsolutePath());
            // every topic as production wants it: replicated to all, writes with acks=all need two in sync
            settings.put("num.partitions", 1);
            settings.put("default.replication.factor", size);
            settings.put("min.insync.replicas", minInSync);
            settings.put("offsets.topic.replication.factor", size);
            settings.put("offsets.topic.num.partitions", 2);
            settings.put("transaction.state.log.replication.factor", size);
            settings.put("transaction.state.log.min.isr", minInSync);
            settings.put("transaction.state.log.num.partitions", TRANSACTION_STATE_PARTITIONS);
            settings.put("share.coordinator.state.topic.replication.factor", size);
            settings.put("share.coordinator.state.topic.min.isr", minInSync);
            settings.put("unclean.leader.election.enable", false);
            // leaders stay where the last failover put them: a test's leaderOf stays true until it strikes
            settings.put("auto.leader.rebalance.enable", false);
            settings.put("group.initial.rebalance.delay.ms", 0);
            // a killed, frozen or cut-off broker is fenced, and its partitions move, within seconds
            settings.put("broker.heartbeat.interval.ms", 500);
            settings.put("broker.session.timeout.ms", SESSION_TIMEOUT_MS);
            settings.put("replica.lag.time.max.ms", 10_000);
            // a node's own clients (to the controller, the voters, the leaders it follows) give up on a silent peer
            // within seconds: with the defaults a broker kept forwarding a client's request (CreateTopics) to a
            // controller cut off, over a new connection for 11 s (setup timeout 10 s), over an old one for 30 s
            settings.put("socket.connection.setup.timeout.ms", 1000);
            settings.put("socket.connection.setup.timeout.max.ms", 3000);
            settings.put("controller.socket.timeout.ms", 5000);
            // few threads and a small compaction buffer (128 MB by default, on the heap): three nodes on two cores
            settings.put("num.network.threads", 2);
            settings.put("num.io.threads", 2);
            settings.put("background.threads", 2);
            settings.put("num.replica.fetchers", 1);
            settings.put("num.recovery.threads.per.data.dir", 1);
            settings.put("log.cleaner.threads", 1);
            settings.put("log.cleaner.dedupe.buffer.size", 2 * 1024 * 1024);
            StringBuilder text = new StringBuilder();
            settings.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
            Files.writeString(config(), text.toString(), StandardCharsets.UTF_8);
            format = true;
        }

        @Override
        protected Process launch() throws IOException {
            List<String> arguments = format ? List.of("--format", cluster.clusterId, config().toString())
                    : List.of(config().toString());
            List<String> command = ChildJvm.command(List.of("-Xms64m", "-Xmx256m", "-Djava.net.preferIPv4Stack=true",
                            "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                            "-Dorg.slf4j.simpleLogger.showDateTime=true",
                            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                            "-Dorg.slf4j.simpleLogger.logFile=System.out"),
                    KafkaNodeMain.class.getName(), arguments);
            Path log = home.resolve("kafka.log");
            Process started = cluster.network == null
                    ? new ProcessBuilder(command).redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start()
                    : cluster.network.start(host, command, log);
            format = false;
            return started;
        }

        /** Started: whether the node serves is the cluster's question, since none serves before a quorum forms. */
        @Override
        protected boolean ready() {
            return true;
        }

        @Override
        protected void deleteData() {
            super.deleteData();
            try {
                initialize();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public String toString() {
            return "kafka node " + id + "[" + host() + ":" + port + "]";
        }
    }
}
