package dev.cosid.testkit.servers;

import dev.cosid.testkit.ChildJvm;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of its own: three servers ({@code QuorumPeerMain}), each in a child JVM with
 * the ZooKeeper jar of the test class path, its own data directory and loopback ports. A server is a
 * process, so SIGKILL and SIGSTOP are real.
 *
 * <p>As a {@link ServerProcess} the ensemble stops, starts, pauses, resumes and kills all three
 * servers at once; {@link #restartEmpty()} wipes all three. {@link #killAndRestart(int)} crashes one
 * server and brings it back; {@link #leader()} says which one leads.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.started()) {
 *     LeaseStore store = LeaseStores.open(ensemble.url());
 *     ensemble.killAndRestart(ensemble.leader());
 * }
 * }</pre>
 */
public final class ZooKeeperEnsemble extends ServerProcess {

    private static final Clock CLOCK = Clock.system();

    private final List<Peer> peers = new ArrayList<>();
    private boolean running;

    private ZooKeeperEnsemble() {
        super("zookeeper-ensemble", Path.of("target", "servers"));
        for (int id = 1; id <= 3; id++) {
            peers.add(new Peer(this, id));
        }
    }

    /**
     * Starts an ensemble of three servers and waits until each serves as leader or follower.
     *
     * @return the running ensemble
     */
    public static ZooKeeperEnsemble started() {
        ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble();
        ensemble.firstStart();
        return ensemble;
    }

    /** Returns the store URL, all three servers in the connect string. */
    public String url() {
        return "zookeeper://" + peers.stream().map(peer -> "127.0.0.1:" + peer.port())
                .collect(Collectors.joining(","));
    }

    /** Returns the client ports of the servers. */
    public List<Integer> ports() {
        return peers.stream().map(Peer::port).collect(Collectors.toList());
    }

    /** Returns the number of servers. */
    public int size() {
        return peers.size();
    }

    /**
     * Returns the index of the server that leads now.
     *
     * @return 0, 1 or 2
     * @throws IllegalStateException when no server leads
     */
    public int leader() {
        for (int i = 0; i < peers.size(); i++) {
            if (peers.get(i).mode().equals("leader")) {
                return i;
            }
        }
        throw new IllegalStateException(this + " has no leader");
    }

    /**
     * Kills one server with SIGKILL, waits until the other two serve again (electing a new leader if it
     * led), then restarts it and waits until it has joined.
     *
     * @param index the server, 0 to 2
     */
    public synchronized void killAndRestart(int index) {
        Peer peer = peers.get(index);
        peer.kill();
        awaitServing(peers.stream().filter(other -> other != peer).collect(Collectors.toList()));
        peer.start();
        awaitServing(peers);
    }

    @Override
    protected void initialize() throws IOException {
        for (Peer peer : peers) {
            peer.initialize();
        }
    }

    @Override
    protected Process launch() {
        throw new UnsupportedOperationException("an ensemble starts its servers");
    }

    @Override
    protected boolean ready() {
        return running;
    }

    @Override
    protected List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        peers.forEach(peer -> pids.addAll(peer.pids()));
        return pids;
    }

    /** Starts all three servers, then waits until each serves: none can serve before a quorum is up. */
    @Override
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException(this + " is already running");
        }
        for (Peer peer : peers) {
            peer.alone = false;
            peer.start();
        }
        peers.forEach(peer -> peer.alone = true);
        running = true;
        awaitServing(peers);
    }

    private void awaitServing(List<Peer> serving) {
        long deadline = CLOCK.monotonicNanos() + READY_TIMEOUT.toNanos();
        while (!serving.stream().allMatch(Peer::serving)) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException(this + " was not serving within " + READY_TIMEOUT + "; see " + home);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Override
    public synchronized void stop() {
        peers.forEach(Peer::stop);
        running = false;
    }

    @Override
    public synchronized void kill() {
        peers.forEach(Peer::kill);
        running = false;
    }

    @Override
    public synchronized void pause() {
        peers.forEach(Peer::pause);
    }

    @Override
    public synchronized void resume() {
        peers.forEach(Peer::resume);
    }

    @Override
    protected void deleteData() {
        peers.forEach(Peer::deleteData);
    }

    @Override
    public synchronized void close() {
        peers.forEach(Peer::close);
        running = false;
        deleteTree(home);
    }

    /** One server of the ensemble. */
    private static final class Peer extends ServerProcess {

        private final ZooKeeperEnsemble ensemble;
        private final int id;
        private final int quorumPort = freePort();
        private final int electionPort = freePort();
        /** Whether readiness means serving (a restart beside running servers) or only listening (a first start). */
        boolean alone = true;

        Peer(ZooKeeperEnsemble ensemble, int id) {
            super("server-" + id, ensemble.home);
            this.ensemble = ensemble;
            this.id = id;
        }

        String mode() {
            String status = ask("srvr", -1);
            int at = status.indexOf("Mode: ");
            return at < 0 ? "" : status.substring(at + 6).split("\\s")[0];
        }

        boolean serving() {
            String mode = mode();
            return mode.equals("leader") || mode.equals("follower");
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
                    "clientPortAddress=127.0.0.1",
                    "maxClientCnxns=0",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr",
                    "standaloneEnabled=false"));
            for (Peer peer : ensemble.peers) {
                lines.add("server." + peer.id + "=127.0.0.1:" + peer.quorumPort + ":" + peer.electionPort);
            }
            lines.add("");
            Files.writeString(home.resolve("zoo.cfg"), String.join("\n", lines));
        }

        @Override
        protected Process launch() throws IOException {
            return new ProcessBuilder(ChildJvm.command(List.of("-Xmx256m"), "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                    List.of(home.resolve("zoo.cfg").toString())))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("zookeeper.log").toFile()))
                    .start();
        }

        @Override
        protected boolean ready() {
            // a server answers srvr as soon as its client port is open, "not currently serving" until a quorum forms
            return alone ? serving() : !ask("srvr", -1).isEmpty();
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
