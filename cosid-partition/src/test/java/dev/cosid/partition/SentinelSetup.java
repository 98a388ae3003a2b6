package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.Servers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Redis behind Sentinel across a partition: the primary on side A; two replicas and three sentinels (quorum 2,
 * down after one second) on side B, so that a cut leaves the primary alive on A and lets B's sentinels promote a
 * replica, the other replica following the new primary.
 */
final class SentinelSetup implements AutoCloseable {

    static final String NAME = "cosid";

    private final List<PlacedServer> servers = new ArrayList<>();
    private final Node primary;
    private final List<Node> replicas = new ArrayList<>();
    private final List<Sentinel> sentinels = new ArrayList<>();

    private SentinelSetup(NetworkPartition net, Path binary) {
        primary = new Node(net, net.a(), binary, null);
        servers.add(primary);
        for (int i = 0; i < 2; i++) {
            Node replica = new Node(net, net.b(), binary, primary);
            replicas.add(replica);
            servers.add(replica);
        }
        for (int i = 0; i < 3; i++) {
            Sentinel sentinel = new Sentinel(net, net.b(), binary, primary);
            sentinels.add(sentinel);
            servers.add(sentinel);
        }
    }

    /** Starts the primary, its replicas and the sentinels, and waits until every sentinel sees them all. */
    static SentinelSetup started(NetworkPartition net) {
        SentinelSetup setup = new SentinelSetup(net,
                Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin")));
        try {
            setup.servers.forEach(PlacedServer::begin);
            Await.until(() -> setup.sentinels.stream().allMatch(s -> s.names(setup.primary, 2)), Duration.ofSeconds(60),
                    "every sentinel naming " + setup.primary.address() + " with 2 replicas and 3 sentinels");
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    /** Returns the store URL with the options. */
    String url(String options) {
        return "redis-sentinel://" + sentinels.stream().map(PlacedServer::address).collect(Collectors.joining(","))
                + (options.isEmpty() ? "" : "?" + options) + "#" + NAME;
    }

    /**
     * Waits until every sentinel names a replica on side B as the primary, and that primary has the other
     * replica back.
     */
    void awaitFailover(Duration bound) {
        Await.until(() -> replicas.stream().anyMatch(replica -> sentinels.stream().allMatch(s -> s.names(replica, -1))
                && replica.redis("INFO replication").contains("role:master")
                && replica.redis("INFO replication").contains("connected_slaves:1")), bound,
                "the sentinels on side B promoting a replica, the other replica following it");
    }

    @Override
    public void close() {
        servers.forEach(PlacedServer::close);
    }

    /** A data server: the primary, or a replica of it. */
    static final class Node extends PlacedServer {
        private final Path binary;
        private final Node primary;

        Node(NetworkPartition net, NetworkPartition.Side side, Path binary, Node primary) {
            super(primary == null ? "redis-primary" : "redis-replica", net, side);
            this.binary = binary;
            this.primary = primary;
        }

        @Override
        protected Process launch() {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--port", String.valueOf(port),
                    "--bind", bindAddress(), "--dir", dataDir().toString(), "--appendonly", "no", "--save", "",
                    "--repl-diskless-sync-delay", "0", "--daemonize", "no", "--protected-mode", "no",
                    "--logfile", home.resolve("redis.log").toString()));
            if (primary != null) {
                command.addAll(List.of("--replicaof", primary.host(), String.valueOf(primary.port())));
            }
            return launch(command, "redis.out");
        }

        @Override
        protected boolean ready() {
            if (primary == null) {
                return redis("PING").equals("PONG");
            }
            String info = redis("INFO replication");
            return info.contains("master_link_status:up") && info.contains("master_sync_in_progress:0");
        }
    }

    /** A sentinel monitoring the primary. */
    static final class Sentinel extends PlacedServer {
        private final Path binary;
        private final Node primary;

        Sentinel(NetworkPartition net, NetworkPartition.Side side, Path binary, Node primary) {
            super("redis-sentinel", net, side);
            this.binary = binary;
            this.primary = primary;
        }

        @Override
        protected void initialize() throws IOException {
            super.initialize();
            Files.writeString(dataDir().resolve("sentinel.conf"), String.join("\n",
                    "port " + port,
                    "bind " + bindAddress(),
                    "protected-mode no",
                    "daemonize no",
                    "dir " + dataDir(),
                    "logfile " + home.resolve("sentinel.log"),
                    "sentinel monitor " + NAME + " " + primary.host() + " " + primary.port() + " 2",
                    "sentinel down-after-milliseconds " + NAME + " 1000",
                    "sentinel failover-timeout " + NAME + " 5000",
                    "sentinel parallel-syncs " + NAME + " 2", ""));
        }

        @Override
        protected Process launch() {
            return launch(List.of(binary.toString(), dataDir().resolve("sentinel.conf").toString(), "--sentinel"),
                    "sentinel.out");
        }

        @Override
        protected boolean ready() {
            return redis("PING").equals("PONG");
        }

        /** Whether this sentinel names the server as the primary, with the replicas and the 3 sentinels. */
        boolean names(Node node, int replicas) {
            String info = redis("INFO sentinel");
            return info.contains("name=" + NAME + ",status=ok,address=" + node.address() + ",")
                    && (replicas < 0 || info.contains(",slaves=" + replicas + ",")) && info.contains(",sentinels=3");
        }
    }
}
