package dev.cosid.testkit.servers;

import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of its own: three primaries with one replica each, six {@code redis-server}
 * processes on loopback, created with {@code redis-cli --cluster create --cluster-replicas 1}. Every
 * node is durable ({@code appendfsync always}); the node timeout is one second, so a killed primary's
 * replica takes over within a few seconds.
 *
 * <p>As a {@link ServerProcess} the cluster stops, starts, pauses, resumes and kills all its nodes at
 * once; {@link #restartEmpty()} creates a new cluster on empty nodes. The cluster's own faults are
 * {@link #killPrimaryAndPromote(String)}, {@link #failover(String)} and {@link #moveSlot(String, Runnable)}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.started()) {
 *     LeaseStore store = LeaseStores.open(cluster.url());
 *     cluster.killPrimaryAndPromote("cosid:{orders}:slots");
 * }
 * }</pre>
 */
public final class RedisCluster extends ServerProcess {

    /** How long the cluster may take to agree on a change. */
    private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    private static final Clock CLOCK = Clock.system();

    private final Path server;
    private final Path cli;
    private final List<Node> nodes = new ArrayList<>();
    /** The password every node asks for and replicates with, or null. */
    private final String password;
    private boolean running;

    private RedisCluster(Path server, Path cli, String password) {
        super("redis-cluster", Path.of("target", "servers"));
        this.server = server;
        this.cli = cli;
        this.password = password;
        for (int i = 0; i < 6; i++) {
            nodes.add(new Node(this, i));
        }
    }

    /**
     * Starts a cluster, or skips the calling test if Redis is not installed.
     *
     * @return the running cluster, every slot covered and every replica linked
     */
    public static RedisCluster started() {
        return started(null);
    }

    /**
     * Starts a cluster whose nodes ask for a password ({@code requirepass}, {@code masterauth}), or
     * skips the calling test if Redis is not installed.
     *
     * @param password the password, or null for none
     * @return the running cluster, every slot covered and every replica linked
     */
    public static RedisCluster started(String password) {
        Path server = Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin"));
        Path cli = Servers.binary("redis-cli", "redis-tools", List.of("/usr/bin", "/usr/local/bin"));
        RedisCluster cluster = new RedisCluster(server, cli, password);
        cluster.firstStart();
        return cluster;
    }

    /** Returns the store URL, all six nodes as seeds, with the password if the cluster has one. */
    public String url() {
        return "redis-cluster://" + (password == null ? "" : ":" + password + "@") + nodes.stream().map(node -> "127.0.0.1:" + node.port())
                .collect(Collectors.joining(","));
    }

    /** Returns the ports of the nodes. */
    public List<Integer> ports() {
        return nodes.stream().map(Node::port).collect(Collectors.toList());
    }

    @Override
    protected void initialize() throws IOException {
        for (Node node : nodes) {
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
        List<Long> pids = new ArrayList<>();
        nodes.forEach(node -> pids.addAll(node.pids()));
        return pids;
    }

    /** Starts every node; creates the cluster on first start; waits until every slot is served and every replica linked. */
    @Override
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException(this + " is already running");
        }
        nodes.forEach(Node::start);
        boolean fresh = nodes.stream().allMatch(node -> node.cli("CLUSTER", "INFO")
                .matches("(?s).*cluster_known_nodes:1\\s.*"));
        if (fresh) {
            List<String> create = new ArrayList<>(cliCommand());
            create.addAll(List.of("--cluster", "create"));
            nodes.forEach(node -> create.add("127.0.0.1:" + node.port()));
            create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
            run(create, Duration.ofSeconds(60), false);
        }
        running = true;
        awaitSettled();
    }

    /** Waits until every node sees every slot served, every replica's link is up and nothing is marked failing. */
    public void awaitSettled() {
        await(() -> {
            List<Node> up = nodes.stream().filter(Node::running).collect(Collectors.toList());
            for (Node node : up) {
                if (!node.cli("CLUSTER", "INFO").contains("cluster_state:ok")) {
                    return false;
                }
                if (!settledFlags(node.cli("CLUSTER", "NODES"))) {
                    return false;
                }
                String replication = node.cli("INFO", "replication");
                if (replication.contains("role:slave") && !replication.contains("master_link_status:up")) {
                    return false;
                }
            }
            List<String> command = new ArrayList<>(cliCommand());
            command.addAll(List.of("--cluster", "check", "127.0.0.1:" + up.get(0).port()));
            String check = run(command, Duration.ofSeconds(30), true);
            return check.contains("[OK] All nodes agree about slots configuration.")
                    && check.contains("[OK] All 16384 slots covered.") && !check.contains("[ERR]")
                    && !check.contains("[WARNING]");
        }, "the cluster to settle");
    }

    /**
     * Reports whether a {@code CLUSTER NODES} view flags no node failing or not yet known
     * ({@code fail}, {@code fail?}, {@code handshake}, {@code noaddr}).
     */
    private static boolean settledFlags(String view) {
        for (String line : view.strip().split("\n")) {
            String[] fields = line.strip().split(" ");
            if (fields.length < 3 || flagged(fields[2], "fail", "fail?", "handshake", "noaddr")) {
                return false;
            }
        }
        return true;
    }

    /** Reports whether a node's flags ({@code myself,master,nofailover}) hold any of the given ones. */
    private static boolean flagged(String flags, String... any) {
        List<String> set = List.of(flags.split(","));
        for (String flag : any) {
            if (set.contains(flag)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized void stop() {
        nodes.forEach(Node::stop);
        running = false;
    }

    @Override
    public synchronized void kill() {
        nodes.forEach(Node::kill);
        running = false;
    }

    /**
     * Freezes every node with one SIGSTOP, after turning off the replicas' automatic failover until
     * {@link #resume()} has seen the cluster settle: a paused store is the fault, not a failover. Thawed, each
     * node finds its peers silent for the whole pause; where a replica thaws before its primary long enough for
     * the other primaries to mark that primary failing, the replica can be promoted after the primary runs again;
     * the primary applies and answers writes until it learns it was demoted, and those writes are lost, as
     * docs/stores.md says of a Redis Cluster failover: a CI run handed a segment range out twice after a pause
     * when the nodes thawed one {@code kill} after another, and six nodes thawed a second apart by hand promoted
     * a replica over its running primary in one pause of three (none with automatic failover off).
     */
    @Override
    public synchronized void pause() {
        List<Node> up = nodes.stream().filter(Node::running).collect(Collectors.toList());
        automaticFailover(up, false);
        pauseTogether(up, true);
    }

    /**
     * Thaws every node with one SIGCONT and waits until the cluster has settled (every node sees every slot
     * served and no peer failing, every replica linked: one that thawed first can mark a peer as failing, which
     * leaves the cluster down until the flag clears), then turns the replicas' automatic failover back on.
     */
    @Override
    public synchronized void resume() {
        List<Node> up = nodes.stream().filter(Node::running).collect(Collectors.toList());
        pauseTogether(up, false);
        awaitSettled();
        automaticFailover(up, true);
    }

    private static void automaticFailover(List<Node> nodes, boolean on) {
        nodes.forEach(node -> requireOk(node.cli("CONFIG", "SET", "cluster-replica-no-failover", on ? "no" : "yes")));
    }

    @Override
    protected void deleteData() {
        nodes.forEach(Node::deleteData);
    }

    @Override
    public synchronized void close() {
        nodes.forEach(Node::close);
        running = false;
        deleteTree(home);
    }

    /**
     * Returns the port of the primary that serves a key's hash slot now.
     *
     * @param key a key, such as {@code cosid:{orders}:slots}
     * @return the primary's port
     */
    public int primaryOf(String key) {
        int slot = slotOf(key);
        for (String line : anyRunning().cli("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8 || !flagged(fields[2], "master") || flagged(fields[2], "fail", "fail?")) {
                continue;
            }
            for (int i = 8; i < fields.length; i++) {
                String range = fields[i];
                if (range.startsWith("[")) {
                    continue;
                }
                String[] bounds = range.split("-");
                int low = Integer.parseInt(bounds[0]);
                int high = Integer.parseInt(bounds[bounds.length - 1]);
                if (slot >= low && slot <= high) {
                    return portOf(fields[1]);
                }
            }
        }
        throw new IllegalStateException("no primary serves slot " + slot + " of key " + key);
    }

    /**
     * Returns the hash slot of a key.
     *
     * @param key the key
     * @return its slot, 0 to 16383
     */
    public int slotOf(String key) {
        return Integer.parseInt(anyRunning().cli("CLUSTER", "KEYSLOT", key).trim());
    }

    /**
     * Kills the primary of a key's slot with SIGKILL, waits until its replica has taken over (the
     * cluster's own failure detection and election), then restarts the killed node, which rejoins as
     * a replica of the promoted one.
     *
     * @param key a key whose primary to kill
     * @return the port of the promoted replica, the key's primary now
     */
    public synchronized int killPrimaryAndPromote(String key) {
        Node primary = node(primaryOf(key));
        Node replica = replicaOf(primary);
        if (replica == null) {
            throw new IllegalStateException("primary " + primary.port() + " has no healthy replica; it sees "
                    + primary.cli("CLUSTER", "NODES").replace('\n', ';'));
        }
        primary.kill();
        await(() -> replica.cli("INFO", "replication").contains("role:master")
                && replica.cli("CLUSTER", "INFO").contains("cluster_state:ok"), "replica " + replica.port()
                + " promoted after primary " + primary.port() + " was killed");
        primary.start();
        awaitSettled();
        return replica.port();
    }

    /**
     * Promotes the replica of a key's primary with {@code CLUSTER FAILOVER}: the primary stops writes,
     * the replica catches up and takes over, the old primary becomes its replica.
     *
     * @param key a key whose primary to replace
     * @return the port of the promoted replica
     */
    public synchronized int failover(String key) {
        Node primary = node(primaryOf(key));
        Node replica = replicaOf(primary);
        if (replica == null) {
            throw new IllegalStateException("primary " + primary.port() + " has no healthy replica");
        }
        String answer = replica.cli("CLUSTER", "FAILOVER");
        if (!answer.trim().equals("OK")) {
            throw new IllegalStateException("CLUSTER FAILOVER on " + replica.port() + " answered " + answer);
        }
        await(() -> replica.cli("INFO", "replication").contains("role:master"), "replica " + replica.port()
                + " promoted");
        awaitSettled();
        return replica.port();
    }

    /**
     * Moves a key's hash slot, with its keys, to another primary the way {@code redis-cli --cluster
     * reshard} does: the target imports, the source migrates, {@code MIGRATE} moves the keys, and both
     * (then every primary) learn the new owner. Between the steps the caller's work runs on, meeting
     * {@code ASK} and then {@code MOVED} redirects.
     *
     * @param key a key whose slot to move
     * @param between runs between the steps, such as a pause for the store's traffic
     * @return the port of the new primary
     */
    public synchronized int moveSlot(String key, Runnable between) {
        int slot = slotOf(key);
        Node source = node(primaryOf(key));
        Node target = nodes.stream().filter(node -> node != source && node.running()
                && node.cli("INFO", "replication").contains("role:master")).findFirst().orElseThrow();
        String sourceId = source.cli("CLUSTER", "MYID").trim();
        String targetId = target.cli("CLUSTER", "MYID").trim();
        requireOk(target.cli("CLUSTER", "SETSLOT", String.valueOf(slot), "IMPORTING", sourceId));
        requireOk(source.cli("CLUSTER", "SETSLOT", String.valueOf(slot), "MIGRATING", targetId));
        between.run();
        while (true) {
            String keys = source.cli("CLUSTER", "GETKEYSINSLOT", String.valueOf(slot), "1000").trim();
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", "127.0.0.1", String.valueOf(target.port()), "",
                    "0", "5000"));
            if (password != null) {
                migrate.addAll(List.of("AUTH", password));
            }
            migrate.add("KEYS");
            migrate.addAll(List.of(keys.split("\n")));
            requireOk(source.cli(migrate.toArray(new String[0])));
        }
        between.run();
        requireOk(target.cli("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", targetId));
        requireOk(source.cli("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", targetId));
        for (Node node : nodes) {
            if (node != source && node != target && node.running()
                    && node.cli("INFO", "replication").contains("role:master")) {
                requireOk(node.cli("CLUSTER", "SETSLOT", String.valueOf(slot), "NODE", targetId));
            }
        }
        await(() -> primaryOf(key) == target.port(), "slot " + slot + " served by " + target.port());
        awaitSettled();
        return target.port();
    }

    private List<String> cliCommand() {
        List<String> command = new ArrayList<>(List.of(cli.toString()));
        if (password != null) {
            command.addAll(List.of("-a", password, "--no-auth-warning"));
        }
        return command;
    }

    private static void requireOk(String answer) {
        if (!answer.trim().equals("OK")) {
            throw new IllegalStateException("redis-cli answered " + answer.trim());
        }
    }

    /**
     * Waits up to a bound until the primary of a key's slot has a healthy replica, which a primary kill
     * needs to be a failover rather than an outage.
     *
     * @param key a key whose primary to look at
     * @param bound how long to wait
     * @return null when it has one, or the cluster as that primary sees it
     */
    public synchronized String awaitReplicaOfPrimary(String key, Duration bound) {
        long deadline = CLOCK.monotonicNanos() + bound.toNanos();
        while (true) {
            Node primary = node(primaryOf(key));
            if (replicaOf(primary) != null) {
                return null;
            }
            if (CLOCK.monotonicNanos() > deadline) {
                return primary.cli("CLUSTER", "NODES").replace('\n', ';');
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** Returns a replica of the primary without a failure flag in the primary's view, or null. */
    private Node replicaOf(Node primary) {
        String primaryId = primary.cli("CLUSTER", "MYID").trim();
        for (String line : primary.cli("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length >= 8 && flagged(fields[2], "slave") && fields[3].equals(primaryId)
                    && !flagged(fields[2], "fail", "fail?")) {
                return node(portOf(fields[1]));
            }
        }
        return null;
    }

    private static int portOf(String address) {
        // 127.0.0.1:PORT@BUSPORT
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    private Node node(int port) {
        return nodes.stream().filter(node -> node.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node on port " + port));
    }

    private Node anyRunning() {
        Optional<Node> up = nodes.stream().filter(Node::running).findFirst();
        return up.orElseThrow(() -> new IllegalStateException(this + " has no running node"));
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = CLOCK.monotonicNanos() + SETTLE_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException("timed out after " + SETTLE_TIMEOUT + " waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** One node of the cluster. */
    private static final class Node extends ServerProcess {

        private final RedisCluster cluster;
        private final int busPort = freePort();

        Node(RedisCluster cluster, int index) {
            super("node-" + index, cluster.home);
            this.cluster = cluster;
        }

        boolean running() {
            return process != null;
        }

        String cli(String... arguments) {
            List<String> command = new ArrayList<>(cluster.cliCommand());
            command.addAll(List.of("-h", "127.0.0.1", "-p", String.valueOf(port)));
            command.addAll(List.of(arguments));
            return run(command, Duration.ofSeconds(10), true);
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(dataDir());
        }

        @Override
        protected Process launch() throws IOException {
            List<String> command = new ArrayList<>(List.of(cluster.server.toString(), "--port", String.valueOf(port),
                    "--bind", "127.0.0.1", "--dir", dataDir().toString(), "--appendonly", "yes",
                    "--appendfsync", "always", "--save", "", "--repl-diskless-sync-delay", "0",
                    "--daemonize", "no", "--protected-mode", "no", "--logfile", home.resolve("redis.log").toString(),
                    "--cluster-enabled", "yes", "--cluster-config-file", dataDir().resolve("nodes.conf").toString(),
                    "--cluster-port", String.valueOf(busPort), "--cluster-node-timeout", "1000",
                    "--cluster-replica-validity-factor", "0", "--cluster-require-full-coverage", "no"));
            if (cluster.password != null) {
                command.addAll(List.of("--requirepass", cluster.password, "--masterauth", cluster.password));
            }
            return new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("redis.out").toFile()))
                    .start();
        }

        @Override
        protected boolean ready() {
            // a node with a password answers -NOAUTH: it is up all the same
            String answer = ask("PING\r\n", 6);
            return answer.startsWith("+PONG") || answer.startsWith("-NOAUT");
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
    }
}
