package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.Servers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An etcd cluster of three across a partition: the leader on side A (leadership moved there after the start),
 * the two other members on side B. A cut leaves the leader without a quorum and lets B's two members elect one.
 */
final class EtcdSetup implements AutoCloseable {

    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\":\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(\\d+)\"");

    private final List<Member> members = new ArrayList<>();
    private final Member cutOff;
    private final String token = "cosid-" + UUID.randomUUID();

    private EtcdSetup(NetworkPartition net, Path binary) {
        cutOff = new Member(net, net.a(), "m0", binary, this);
        members.add(cutOff);
        members.add(new Member(net, net.b(), "m1", binary, this));
        members.add(new Member(net, net.b(), "m2", binary, this));
    }

    /** Starts the three members, waits until all are healthy and moves the leadership to side A's member. */
    static EtcdSetup started(NetworkPartition net) {
        EtcdSetup setup = new EtcdSetup(net, Servers.binary("etcd", "etcd-server", List.of("/usr/bin", "/usr/local/bin")));
        try {
            setup.members.forEach(PlacedServer::begin);
            Await.until(() -> setup.members.stream().allMatch(Member::healthy), Duration.ofSeconds(60),
                    "every etcd member healthy");
            String target = setup.cutOff.id();
            Await.until(() -> {
                String leader = setup.leaderId();
                if (leader.equals(target)) {
                    return true;
                }
                setup.members.stream().filter(member -> member.id().equals(leader)).findFirst()
                        .ifPresent(member -> member.post("/v3/maintenance/transfer-leadership",
                                "{\"targetID\":\"" + target + "\"}"));
                return false;
            }, Duration.ofSeconds(30), "side A's member " + target + " leading");
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    private String leaderId() {
        for (Member member : members) {
            Matcher leader = LEADER.matcher(member.status());
            if (leader.find() && !leader.group(1).equals("0")) {
                return leader.group(1);
            }
        }
        return "";
    }

    /** Returns the store URL naming every member. */
    String url() {
        return "etcd://" + members.stream().map(PlacedServer::address).collect(Collectors.joining(","));
    }

    /** Waits until one of side B's members leads, as B's members see it. */
    void awaitNewLeader(Duration bound) {
        Await.until(() -> members.subList(1, 3).stream().allMatch(member -> {
            Matcher leader = LEADER.matcher(member.status());
            return leader.find() && !leader.group(1).equals("0") && !leader.group(1).equals(cutOff.id);
        }), bound, "the two members on side B electing a leader");
    }

    @Override
    public void close() {
        members.forEach(PlacedServer::close);
    }

    /** One member: its client port is {@link #port()}, its peer port another free one. */
    static final class Member extends PlacedServer {
        private final String name;
        private final Path binary;
        private final EtcdSetup setup;
        private final int peerPort = freePort();
        private String id = "";

        Member(NetworkPartition net, NetworkPartition.Side side, String name, Path binary, EtcdSetup setup) {
            super("etcd-" + name, net, side);
            this.name = name;
            this.binary = binary;
            this.setup = setup;
        }

        @Override
        protected Process launch() {
            String peers = setup.members.stream().map(member -> member.name + "=http://" + member.host() + ":"
                    + member.peerPort).collect(Collectors.joining(","));
            return launch(List.of(binary.toString(), "--name", name, "--data-dir", dataDir().toString(),
                    "--listen-client-urls", "http://" + bindAddress() + ":" + port,
                    "--advertise-client-urls", "http://" + host() + ":" + port,
                    "--listen-peer-urls", "http://" + host() + ":" + peerPort,
                    "--initial-advertise-peer-urls", "http://" + host() + ":" + peerPort,
                    "--initial-cluster", peers, "--initial-cluster-state", "new",
                    "--initial-cluster-token", setup.token, "--heartbeat-interval", "100",
                    "--election-timeout", "1000", "--logger", "zap", "--log-outputs", "stderr"), "etcd.log");
        }

        @Override
        protected boolean ready() {
            return accepts();
        }

        boolean healthy() {
            return ask("GET /health HTTP/1.0\r\n\r\n", -1).contains("\"health\":\"true\"");
        }

        String status() {
            return post("/v3/maintenance/status", "{}");
        }

        String post(String path, String body) {
            return ask("POST " + path + " HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length() + "\r\n\r\n" + body, -1);
        }

        String id() {
            if (id.isEmpty()) {
                Matcher found = MEMBER_ID.matcher(status());
                id = found.find() ? found.group(1) : "";
            }
            return id;
        }
    }
}
