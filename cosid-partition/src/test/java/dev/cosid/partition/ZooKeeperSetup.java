package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.NetworkPartition;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of three across a partition: the leader on side A, the two followers on side B. A cut
 * leaves the leader without a quorum (it steps down after {@code syncLimit} ticks) and lets the two followers
 * elect a new leader among themselves.
 */
final class ZooKeeperSetup implements AutoCloseable {

    private final List<Peer> peers = new ArrayList<>();
    private final Peer cutOff;

    private ZooKeeperSetup(NetworkPartition net) {
        // myid 3 on side A: of the first two servers up, the higher id leads
        peers.add(new Peer(net, net.b(), 1, this));
        peers.add(new Peer(net, net.b(), 2, this));
        cutOff = new Peer(net, net.a(), 3, this);
        peers.add(cutOff);
    }

    /** Starts the ensemble with its leader on side A and waits until every server serves. */
    static ZooKeeperSetup started(NetworkPartition net) {
        ZooKeeperSetup setup = new ZooKeeperSetup(net);
        try {
            for (Peer peer : setup.peers) {
                peer.initializeOnly();
            }
            // A's server and one of B's form the first quorum: A's, with the higher id, leads it
            setup.cutOff.start();
            setup.peers.get(0).start();
            Await.until(() -> setup.cutOff.mode().equals("leader") && setup.peers.get(0).mode().equals("follower"),
                    Duration.ofSeconds(60), "the server on side A leading the first quorum");
            setup.peers.get(1).start();
            Await.until(() -> setup.peers.get(1).mode().equals("follower"), Duration.ofSeconds(60),
                    "the third server following");
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    /** Returns the store URL naming every server. */
    String url() {
        return "zookeeper://" + peers.stream().map(PlacedServer::address).collect(Collectors.joining(","));
    }

    /** Waits until one of side B's servers leads and the other follows it. */
    void awaitNewLeader(Duration bound) {
        Await.until(() -> peers.subList(0, 2).stream().anyMatch(peer -> peer.mode().equals("leader"))
                && peers.subList(0, 2).stream().anyMatch(peer -> peer.mode().equals("follower")), bound,
                "the two servers on side B electing a leader");
    }

    /** Returns whether the cut-off server has stopped serving (it no longer leads a quorum). */
    boolean cutOffStopped() {
        String mode = cutOff.mode();
        return !mode.equals("leader") && !mode.equals("follower");
    }

    @Override
    public void close() {
        peers.forEach(PlacedServer::close);
    }

    /** One server of the ensemble, a child JVM inside its side. */
    static final class Peer extends PlacedServer {
        private final int id;
        private final ZooKeeperSetup setup;
        private final int quorumPort = freePort();
        private final int electionPort = freePort();

        Peer(NetworkPartition net, NetworkPartition.Side side, int id, ZooKeeperSetup setup) {
            super("zookeeper-" + id, net, side);
            this.id = id;
            this.setup = setup;
        }

        void initializeOnly() {
            try {
                initialize();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        String mode() {
            String status = ask("srvr", -1);
            int at = status.indexOf("Mode: ");
            return at < 0 ? "" : status.substring(at + 6).split("\\s")[0];
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(dataDir());
            Files.writeString(dataDir().resolve("myid"), id + "\n");
            List<String> lines = new ArrayList<>(List.of(
                    // no fsync per write: a killed server keeps what the kernel holds; a loaded machine answers sooner
                    "forceSync=no",
                    "tickTime=500",
                    "initLimit=20",
                    "syncLimit=5",
                    "dataDir=" + dataDir(),
                    "clientPort=" + port,
                    "clientPortAddress=" + bindAddress(),
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr",
                    "standaloneEnabled=false"));
            for (Peer peer : setup.peers) {
                lines.add("server." + peer.id + "=" + peer.host() + ":" + peer.quorumPort + ":" + peer.electionPort);
            }
            lines.add("");
            Files.writeString(home.resolve("zoo.cfg"), String.join("\n", lines));
        }

        @Override
        protected Process launch() {
            return launch(ChildJvm.command(List.of("-Xmx128m"), "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                    List.of(home.resolve("zoo.cfg").toString())), "zookeeper.log");
        }

        @Override
        protected boolean ready() {
            return !ask("srvr", -1).isEmpty();
        }
    }
}
