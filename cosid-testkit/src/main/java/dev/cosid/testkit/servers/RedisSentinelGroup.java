package dev.cosid.testkit.servers;

import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A Redis primary, one replica (or more, {@link #started(int)}) and three sentinels (quorum 2), each a child
 * process on its own loopback port and directory. The store's default behind Sentinel waits for one replica per
 * write, so a group that must stay writable after {@link #failover()} needs two replicas. The sentinels mark the primary down after one second without an answer and
 * promote the replica. {@link #failover()} kills the primary and waits for the promotion;
 * {@link #rejoin()} brings the killed server back as the new primary's replica. The other operations act on
 * the group as a whole: {@link #pause()} freezes every process, sentinels first, so none of them sees a
 * frozen primary and starts a failover.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (RedisSentinelGroup redis = RedisSentinelGroup.started()) {
 *     LeaseStore store = LeaseStores.open(redis.url()); // redis-sentinel://127.0.0.1:P1,...#cosid
 *     Duration took = redis.failover();                 // SIGKILL the primary, the replica takes over
 *     redis.rejoin();                                   // the old primary replicates the new one
 * }
 * }</pre>
 */
public final class RedisSentinelGroup implements ControlledServer {

    /** The name the sentinels monitor the primary under. */
    public static final String PRIMARY_NAME = "cosid";

    private static final Clock CLOCK = Clock.system();
    private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

    private final List<Node> nodes = new ArrayList<>();
    private final List<Sentinel> sentinels = new ArrayList<>();
    /**
     * The node the sentinels name: the one this group made primary, or the one they chose themselves (a
     * primary slowed past {@code down-after-milliseconds} on a loaded machine is failed over, as in production).
     */
    private Node primary;

    /** The node {@link #failover()} killed, which {@link #rejoin()} starts again; null when every node runs. */
    private Node killed;

    private RedisSentinelGroup(Path binary, int replicas) {
        Node first = new Node(binary, null);
        primary = first;
        nodes.add(first);
        for (int i = 0; i < replicas; i++) {
            nodes.add(new Node(binary, first));
        }
        for (int i = 0; i < 3; i++) {
            sentinels.add(new Sentinel(binary, first.port()));
        }
    }

    /**
     * Starts the group and waits until every sentinel knows the primary, its replica and the two other
     * sentinels, so a failover can happen; skips the calling test if Redis is not installed.
     *
     * @return the running group
     */
    public static RedisSentinelGroup started() {
        return started(1);
    }

    /**
     * Starts a group with the given number of replicas, as {@link #started()} does.
     *
     * @param replicas how many replicas the primary has, 1 or more
     * @return the running group
     */
    public static RedisSentinelGroup started(int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("a Sentinel group needs at least 1 replica, not " + replicas);
        }
        RedisSentinelGroup group = new RedisSentinelGroup(
                Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin")), replicas);
        try {
            group.nodes.forEach(Node::firstStart);
            group.sentinels.forEach(Sentinel::firstStart);
            group.awaitSentinelsAgree();
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
        return group;
    }

    /** Returns the store URL: every sentinel and the primary's name. */
    public String url() {
        StringBuilder url = new StringBuilder("redis-sentinel://");
        for (int i = 0; i < sentinels.size(); i++) {
            url.append(i == 0 ? "" : ",").append("127.0.0.1:").append(sentinels.get(i).port());
        }
        return url.append('#').append(PRIMARY_NAME).toString();
    }

    /** Returns the plain {@code redis://} URL of the current primary, for a test's own reads and writes. */
    public synchronized String primaryUrl() {
        return "redis://127.0.0.1:" + primary.port();
    }

    /** Returns the port of the primary the sentinels name now. */
    public synchronized int primaryPort() {
        return primary.port();
    }

    /**
     * Kills the primary with SIGKILL and waits until every sentinel names one replica as the primary and
     * that replica answers as one.
     *
     * @return how long the promotion took from the kill
     */
    public synchronized Duration failover() {
        followSentinels();
        Node old = primary;
        long start = CLOCK.monotonicNanos();
        old.kill();
        killed = old;
        java.util.concurrent.atomic.AtomicReference<Node> promoted = new java.util.concurrent.atomic.AtomicReference<>();
        await(() -> {
            for (Node next : nodes) {
                if (next != old && sentinels.stream().allMatch(s -> s.names(next.port()))
                        && next.ask("INFO replication\r\nQUIT\r\n", -1).contains("role:master")) {
                    promoted.set(next);
                    return true;
                }
            }
            return false;
        }, FAILOVER_TIMEOUT, "the sentinels promoting a replica of the primary on port " + old.port());
        Duration took = Duration.ofNanos(CLOCK.monotonicNanos() - start);
        Node next = promoted.get();
        for (Node node : nodes) {
            node.primary = node == next ? null : next;
        }
        primary = next;
        return took;
    }

    /** Waits until every running replica has applied every write the primary has so far (equal replication offsets). */
    public synchronized void awaitReplicaCaughtUp() {
        for (Node replica : replicas()) {
            if (replica == killed) {
                continue;
            }
            await(() -> {
                String offset = RedisInfo.field(primary.ask(RedisInfo.INFO, -1), "master_repl_offset:");
                return offset != null
                        && offset.equals(RedisInfo.field(replica.ask(RedisInfo.INFO, -1), "slave_repl_offset:"));
            }, Duration.ofSeconds(30), "the replica on port " + replica.port() + " catching up");
        }
    }

    /**
     * Starts the server {@link #failover()} killed as the new primary's replica (its data kept) and waits
     * until the sentinels see every replica healthy and caught up, so the next failover can promote one.
     * On a loaded machine the sentinels may fail over once more while it rejoins (the new primary slowed
     * past {@code down-after-milliseconds}) and promote the rejoined server itself; the group then follows them.
     */
    public synchronized void rejoin() {
        if (killed != null) {
            killed.start();
            killed = null;
        }
        awaitSentinelsAgree();
        awaitReplicaCaughtUp();
    }

    private List<Node> replicas() {
        List<Node> replicas = new ArrayList<>(nodes);
        replicas.remove(primary);
        return replicas;
    }

    /**
     * Takes the node every sentinel names as the primary, with every other one as its healthy replica, if
     * they agree on one; returns whether they did.
     */
    private boolean followSentinels() {
        for (Node candidate : nodes) {
            List<Node> others = new ArrayList<>(nodes);
            others.remove(candidate);
            if (sentinels.stream().allMatch(s -> s.names(candidate.port())
                    && others.stream().allMatch(other -> s.seesHealthyReplica(other.port())))) {
                primary = candidate;
                candidate.primary = null;
                others.forEach(other -> other.primary = candidate);
                return true;
            }
        }
        return false;
    }

    private void awaitSentinelsAgree() {
        try {
            await(this::followSentinels, Duration.ofSeconds(60), "every sentinel naming one node as the primary (now "
                    + primary.port() + "), the others as its healthy replicas, and knowing the other sentinels");
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "; the first sentinel reports "
                    + sentinels.get(0).command("INFO", "sentinel").replace("\r\n", " ")
                    + sentinels.get(0).command("SENTINEL", "REPLICAS", PRIMARY_NAME).replace("\n", " "), e);
        }
    }

    private static void await(BooleanSupplier condition, Duration bound, String what) {
        long deadline = CLOCK.monotonicNanos() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException("no " + what + " within " + bound);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Freezes every running replica with SIGSTOP, leaving the primary and the sentinels running. */
    public synchronized void pauseReplicas() {
        replicas().stream().filter(node -> node != killed).forEach(Node::pause);
    }

    /** Lets the replicas {@link #pauseReplicas()} froze run again (SIGCONT) and waits until they caught up. */
    public synchronized void resumeReplicas() {
        replicas().stream().filter(node -> node != killed).forEach(Node::resume);
        awaitReplicaCaughtUp();
    }

    @Override
    public synchronized void start() {
        primary.start();
        replicas().forEach(Node::start);
        killed = null;
        sentinels.forEach(Sentinel::start);
        awaitSentinelsAgree();
    }

    @Override
    public synchronized void stop() {
        sentinels.forEach(Sentinel::stop);
        replicas().forEach(Node::stop);
        primary.stop();
    }

    @Override
    public synchronized void restart() {
        stop();
        start();
    }

    @Override
    public synchronized void restartEmpty() {
        stop();
        for (Node node : nodes) {
            node.deleteData();
            try {
                node.initialize();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        start();
    }

    @Override
    public synchronized void kill() {
        sentinels.forEach(Sentinel::kill);
        nodes.forEach(Node::kill);
    }

    @Override
    public synchronized void pause() {
        sentinels.forEach(Sentinel::pause);
        nodes.forEach(Node::pause);
    }

    @Override
    public synchronized void resume() {
        nodes.forEach(Node::resume);
        sentinels.forEach(Sentinel::resume);
    }

    @Override
    public synchronized void close() {
        sentinels.forEach(Sentinel::close);
        nodes.forEach(Node::close);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup[" + url() + ", primary 127.0.0.1:" + primary.port() + "]";
    }

    /** A data server: a primary, or the replica of {@link #primary}. */
    private static final class Node extends ServerProcess {

        private final Path binary;
        private Node primary;

        Node(Path binary, Node primary) {
            super("redis-node", Path.of("target", "servers"));
            this.binary = binary;
            this.primary = primary;
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(dataDir());
        }

        @Override
        protected Process launch() throws IOException {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", String.valueOf(port),
                    "--bind", "127.0.0.1", "--dir", dataDir().toString(), "--appendonly", "yes", "--appendfsync",
                    "always", "--save", "", "--repl-diskless-sync-delay", "0", "--daemonize", "no",
                    "--protected-mode", "no", "--logfile", home.resolve("redis.log").toString()));
            if (primary != null) {
                command.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(primary.port)));
            }
            return new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("redis.out").toFile())).start();
        }

        @Override
        protected boolean ready() {
            if (primary == null) {
                return ask("PING\r\n", 5).equals("+PONG");
            }
            String primaryInfo = primary.ask(RedisInfo.INFO, -1);
            String mine = ask(RedisInfo.INFO, -1);
            // started as a replica, it is a primary only if the sentinels promoted it: they failed over from the
            // primary it was started under, which will never count it as a caught-up replica again. It runs;
            // the group follows the sentinels from here (rejoin)
            return RedisInfo.replicaCaughtUp(mine, primaryInfo, port) || "master".equals(RedisInfo.field(mine, "role:"));
        }

        @Override
        protected String whyNotReady() {
            String mine = ask(RedisInfo.INFO, -1);
            String log;
            try {
                List<String> lines = Files.readAllLines(home.resolve("redis.log"));
                log = String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
            } catch (IOException e) {
                log = "no log: " + e.getMessage();
            }
            return "its INFO: " + RedisInfo.brief(mine) + "; its primary's (" + (primary == null ? "none" : primary.port)
                    + "): " + (primary == null ? "" : RedisInfo.brief(primary.ask(RedisInfo.INFO, -1)))
                    + "; the end of its log: " + log;
        }
    }

    /** A sentinel: {@code redis-server sentinel.conf --sentinel}, its state rewritten into that file. */
    private static final class Sentinel extends ServerProcess {

        private final Path binary;
        private final int primaryPort;

        Sentinel(Path binary, int primaryPort) {
            super("redis-sentinel", Path.of("target", "servers"));
            this.binary = binary;
            this.primaryPort = primaryPort;
        }

        private Path config() {
            return dataDir().resolve("sentinel.conf");
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(dataDir());
            Files.writeString(config(), String.join("\n",
                    "port " + port,
                    "bind 127.0.0.1",
                    "protected-mode no",
                    "daemonize no",
                    "dir " + dataDir(),
                    "logfile " + home.resolve("sentinel.log"),
                    "sentinel monitor " + PRIMARY_NAME + " 127.0.0.1 " + primaryPort + " 2",
                    "sentinel down-after-milliseconds " + PRIMARY_NAME + " 1000",
                    "sentinel failover-timeout " + PRIMARY_NAME + " 5000",
                    "sentinel parallel-syncs " + PRIMARY_NAME + " 1", ""));
        }

        @Override
        protected Process launch() throws IOException {
            return new ProcessBuilder(binary.toString(), config().toString(), "--sentinel").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("sentinel.out").toFile())).start();
        }

        @Override
        protected boolean ready() {
            return ask("PING\r\n", 5).equals("+PONG");
        }

        /** Whether this sentinel names the server on the port as the primary, and knows the other sentinels. */
        boolean names(int port) {
            String info = command("INFO", "sentinel");
            return info.contains("name=" + PRIMARY_NAME + ",status=ok,address=127.0.0.1:" + port + ",")
                    && info.contains(",sentinels=3");
        }

        /** Whether this sentinel sees the replica on the port up with its link to the primary up. */
        boolean seesHealthyReplica(int port) {
            for (String entry : command("SENTINEL", "REPLICAS", PRIMARY_NAME).split("\\]")) {
                if (entry.contains("\nport\n" + port + "\n")) {
                    return entry.contains("\nflags\nslave\n") && entry.contains("\nmaster-link-status\nok\n");
                }
            }
            return false;
        }

        /** The reply to a command, arrays as {@code [a\nb\n]}; empty when the sentinel does not answer. */
        String command(String... args) {
            // a sentinel keeps the connection open after QUIT in some versions: read one reply, not to the end
            try (java.net.Socket socket = new java.net.Socket()) {
                socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 500);
                socket.setSoTimeout(1000);
                StringBuilder request = new StringBuilder("*" + args.length + "\r\n");
                for (String arg : args) {
                    request.append('$').append(arg.length()).append("\r\n").append(arg).append("\r\n");
                }
                socket.getOutputStream().write(request.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                return reply(new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream())));
            } catch (IOException e) {
                return "";
            }
        }

        private static String reply(java.io.DataInputStream in) throws IOException {
            String line = line(in);
            switch (line.charAt(0)) {
                case '$': {
                    int length = Integer.parseInt(line.substring(1));
                    if (length < 0) {
                        return "";
                    }
                    byte[] bytes = new byte[length + 2];
                    in.readFully(bytes);
                    return new String(bytes, 0, length, java.nio.charset.StandardCharsets.UTF_8);
                }
                case '*': {
                    StringBuilder items = new StringBuilder("[\n");
                    for (int i = Integer.parseInt(line.substring(1)); i > 0; i--) {
                        items.append(reply(in)).append('\n');
                    }
                    return items.append(']').toString();
                }
                default:
                    return line.substring(1);
            }
        }

        private static String line(java.io.DataInputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\r'; c = in.read()) {
                if (c < 0) {
                    throw new java.io.EOFException();
                }
                line.append((char) c);
            }
            in.read();
            return line.toString();
        }
    }
}
