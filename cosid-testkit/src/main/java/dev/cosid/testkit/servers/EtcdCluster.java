package dev.cosid.testkit.servers;

import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An etcd cluster of its own: three members from Debian's {@code etcd-server}, each a child process
 * with its own data directory and free loopback client and peer ports. As a {@link ServerProcess}
 * the cluster acts as one server (stop, pause, restart empty act on every member); {@link #members()}
 * and {@link #leader()} reach single members, to kill or pause one.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (EtcdCluster etcd = EtcdCluster.started()) {
 *     LeaseStore store = LeaseStores.open(etcd.url());
 *     EtcdCluster.Member leader = etcd.leader();
 *     leader.pause();   // SIGSTOP: the others elect a new leader
 *     leader.resume();
 * }
 * }</pre>
 */
public final class EtcdCluster extends ServerProcess {

    private static final Clock CLOCK = Clock.system();
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\":\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(\\d+)\"");

    private final Path binary;
    private final List<Member> members = new ArrayList<>();
    private String token;
    private boolean running;

    private EtcdCluster(Path binary, int size) {
        super("etcd-cluster", Path.of("target", "servers"));
        this.binary = binary;
        for (int i = 0; i < size; i++) {
            members.add(new Member(this, "m" + i));
        }
    }

    /**
     * Starts a three-member cluster, or skips the calling test if etcd is not installed.
     *
     * @return the running cluster, every member healthy
     */
    public static EtcdCluster started() {
        EtcdCluster cluster = new EtcdCluster(
                Servers.binary("etcd", "etcd-server", List.of("/usr/bin", "/usr/local/bin")), 3);
        cluster.firstStart();
        return cluster;
    }

    /** Returns the store URL naming every member. */
    public String url() {
        return "etcd://" + members.stream().map(member -> "127.0.0.1:" + member.port)
                .collect(Collectors.joining(","));
    }

    /** Returns the members, in a fixed order. */
    public List<Member> members() {
        return List.copyOf(members);
    }

    /**
     * Returns the member that leads now, as the members that answer see it.
     *
     * @return the leader
     * @throws IllegalStateException when no answering member knows a leader within ten seconds
     */
    public Member leader() {
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(10);
        while (CLOCK.monotonicNanos() < deadline) {
            for (Member member : members) {
                String status = member.status();
                Matcher leader = LEADER.matcher(status);
                if (leader.find() && !leader.group(1).equals("0")) {
                    for (Member candidate : members) {
                        if (leader.group(1).equals(candidate.id())) {
                            return candidate;
                        }
                    }
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        throw new IllegalStateException("no member of " + this + " knows a leader");
    }

    /** Waits until every member reports itself healthy (it has a leader and answers). */
    public void awaitHealthy() {
        long deadline = CLOCK.monotonicNanos() + READY_TIMEOUT.toNanos();
        while (!ready()) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException(this + " was not healthy within " + READY_TIMEOUT + "; see " + home);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Override
    protected void initialize() throws IOException {
        token = "cosid-" + UUID.randomUUID();
        for (Member member : members) {
            member.initialize();
        }
    }

    @Override
    protected Process launch() {
        throw new UnsupportedOperationException("a cluster starts its members");
    }

    @Override
    protected boolean ready() {
        return members.stream().allMatch(Member::healthy);
    }

    @Override
    protected List<Long> pids() {
        return members.stream().flatMap(member -> member.pids().stream()).collect(Collectors.toList());
    }

    @Override
    public synchronized void start() {
        if (running) {
            throw new IllegalStateException(this + " is already running");
        }
        for (Member member : members) {
            member.start();
        }
        running = true;
        awaitHealthy();
    }

    @Override
    public synchronized void stop() {
        members.forEach(Member::stop);
        running = false;
    }

    @Override
    public synchronized void kill() {
        members.forEach(Member::kill);
        running = false;
    }

    @Override
    public synchronized void pause() {
        members.forEach(Member::pause);
    }

    @Override
    public synchronized void resume() {
        members.forEach(Member::resume);
    }

    @Override
    protected void deleteData() {
        for (Member member : members) {
            member.deleteData();
        }
    }

    @Override
    public String toString() {
        return "EtcdCluster[" + url() + ", " + home + "]";
    }

    /** One member: its client port is {@link #port()}, its peer port another free one. */
    public static final class Member extends ServerProcess {

        private final EtcdCluster cluster;
        private final String name;
        private final int peerPort;

        private Member(EtcdCluster cluster, String name) {
            super(name, cluster.home);
            this.cluster = cluster;
            this.name = name;
            this.peerPort = freePort();
        }

        /** Returns the member's name in the cluster. */
        public String name() {
            return name;
        }

        @Override
        protected void initialize() throws IOException {
            Files.createDirectories(home);
        }

        @Override
        protected Process launch() throws IOException {
            String peers = cluster.members.stream()
                    .map(member -> member.name + "=http://127.0.0.1:" + member.peerPort)
                    .collect(Collectors.joining(","));
            // an existing data directory wins over the --initial-* flags: a restarted member rejoins with its data
            List<String> command = List.of(cluster.binary.toString(),
                    "--name", name,
                    "--data-dir", dataDir().toString(),
                    "--listen-client-urls", "http://127.0.0.1:" + port,
                    "--advertise-client-urls", "http://127.0.0.1:" + port,
                    "--listen-peer-urls", "http://127.0.0.1:" + peerPort,
                    "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                    "--initial-cluster", peers,
                    "--initial-cluster-state", "new",
                    "--initial-cluster-token", cluster.token,
                    "--heartbeat-interval", "100",
                    "--election-timeout", "1000",
                    "--logger", "zap",
                    "--log-outputs", "stderr");
            return new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("etcd.log").toFile()))
                    .start();
        }

        /** The client port accepts: the member runs, whether or not the cluster has a quorum. */
        @Override
        protected boolean ready() {
            return accepts();
        }

        boolean healthy() {
            return ask("GET /health HTTP/1.0\r\n\r\n", -1).contains("\"health\":\"true\"");
        }

        /** The member's own status from its gRPC gateway, or empty when it does not answer. */
        String status() {
            return ask("POST /v3/maintenance/status HTTP/1.0\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 2\r\n\r\n{}", -1);
        }

        String id() {
            Matcher id = MEMBER_ID.matcher(status());
            return id.find() ? id.group(1) : "";
        }

        @Override
        public String toString() {
            return "etcd member " + name + "[127.0.0.1:" + port + "]";
        }
    }
}
