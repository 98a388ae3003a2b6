package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.Servers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster across a partition: three primaries with one replica each, the primary that serves the test's
 * namespace alone on side A, the two other primaries and all three replicas on side B (the cut-off primary's
 * replica among them). Node timeout one second: a cut leaves the majority on B, which promotes the replica, and
 * the minority primary on A, which stops taking writes once it no longer reaches a majority.
 */
final class ClusterSetup implements AutoCloseable {

    private final List<Node> nodes = new ArrayList<>();
    private final Node cutOff;
    private final Node cutOffReplica;

    private ClusterSetup(NetworkPartition net, Path binary) {
        cutOff = new Node(net, net.a(), binary);
        nodes.add(cutOff);
        for (int i = 0; i < 2; i++) {
            nodes.add(new Node(net, net.b(), binary));
        }
        cutOffReplica = new Node(net, net.b(), binary);
        nodes.add(cutOffReplica);
        for (int i = 0; i < 2; i++) {
            nodes.add(new Node(net, net.b(), binary));
        }
    }

    /**
     * Starts six nodes, makes them one cluster whose namespace's slot lies with the primary on side A, and waits
     * until every node sees the cluster ok and every replica is linked.
     */
    static ClusterSetup started(NetworkPartition net, String namespace) {
        ClusterSetup setup = new ClusterSetup(net,
                Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin")));
        try {
            setup.nodes.forEach(PlacedServer::begin);
            setup.form("cosid:{" + namespace + "}:slots");
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    private void form(String key) {
        Node first = nodes.get(0);
        for (Node node : nodes.subList(1, nodes.size())) {
            require(first.redis("CLUSTER MEET " + node.host() + " " + node.port() + " " + node.busPort), "OK");
        }
        Await.until(() -> nodes.stream().allMatch(node -> node.redis("CLUSTER INFO").contains("cluster_known_nodes:6")),
                Duration.ofSeconds(30), "six nodes knowing each other");
        int slot = Integer.parseInt(first.redis("CLUSTER KEYSLOT " + key).trim());
        // three ranges of the 16384 slots, turned so that the first (side A's primary) holds the key's slot
        int start = slot;
        for (int i = 0; i < 3; i++) {
            int from = (start + i * 5462) % 16384;
            int to = (from + (i == 2 ? 16384 - 2 * 5462 : 5462) - 1) % 16384;
            Node primary = nodes.get(i);
            if (to >= from) {
                require(primary.redis("CLUSTER ADDSLOTSRANGE " + from + " " + to), "OK");
            } else {
                require(primary.redis("CLUSTER ADDSLOTSRANGE " + from + " 16383 0 " + to), "OK");
            }
        }
        for (int i = 0; i < 3; i++) {
            Node primary = nodes.get(i);
            Node replica = nodes.get(3 + i);
            String id = primary.redis("CLUSTER MYID").trim();
            Await.until(() -> replica.redis("CLUSTER NODES").contains(id), Duration.ofSeconds(30),
                    "replica " + replica.address() + " knowing its primary");
            require(replica.redis("CLUSTER REPLICATE " + id), "OK");
        }
        Await.until(() -> nodes.stream().allMatch(node -> node.redis("CLUSTER INFO").contains("cluster_state:ok"))
                && nodes.subList(3, 6).stream().allMatch(node -> node.redis("INFO replication")
                        .contains("master_link_status:up")), Duration.ofSeconds(60),
                "every node seeing the cluster ok and every replica linked");
    }

    private static void require(String answer, String expected) {
        if (!answer.trim().equals(expected)) {
            throw new IllegalStateException("the cluster answered '" + answer + "', not " + expected);
        }
    }

    /** Returns the store URL, every node a seed. */
    String url() {
        return "redis-cluster://" + nodes.stream().map(PlacedServer::address).collect(Collectors.joining(","));
    }

    /** Waits until the cut-off primary's replica on side B is a primary. */
    void awaitFailover(Duration bound) {
        Await.until(() -> cutOffReplica.redis("INFO replication").contains("role:master"), bound,
                "the replica " + cutOffReplica.address() + " of the cut-off primary taking over on side B");
    }

    /** Returns the cluster as the cut-off primary's replica sees it, one node a line. */
    String view() {
        return cutOffReplica.redis("CLUSTER NODES");
    }

    /** Returns whether the cut-off primary refuses writes now (its cluster state is fail). */
    boolean cutOffPrimaryDown() {
        return cutOff.redis("CLUSTER INFO").contains("cluster_state:fail");
    }

    @Override
    public void close() {
        nodes.forEach(PlacedServer::close);
    }

    /** One cluster node. */
    static final class Node extends PlacedServer {
        private final Path binary;
        final int busPort = freePort();

        Node(NetworkPartition net, NetworkPartition.Side side, Path binary) {
            super("redis-cluster", net, side);
            this.binary = binary;
        }

        @Override
        protected Process launch() {
            return launch(List.of(binary.toString(), "--port", String.valueOf(port), "--bind", bindAddress(),
                    "--dir", dataDir().toString(), "--appendonly", "no", "--save", "", "--repl-diskless-sync-delay",
                    "0", "--daemonize", "no", "--protected-mode", "no", "--logfile", home.resolve("redis.log").toString(),
                    "--cluster-enabled", "yes", "--cluster-config-file", dataDir().resolve("nodes.conf").toString(),
                    "--cluster-port", String.valueOf(busPort), "--cluster-announce-ip", host(),
                    "--cluster-node-timeout", "1000", "--cluster-replica-validity-factor", "0",
                    "--cluster-require-full-coverage", "no"), "redis.out");
        }

        @Override
        protected boolean ready() {
            return redis("PING").equals("PONG");
        }
    }
}
