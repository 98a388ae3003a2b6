package dev.cosid.simulation;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chaos run per server store: {@code cosid.chaos.seconds} each (15 by default; raise it for a long
 * run). Fails on any duplicate id.
 */
class ChaosTest {

    @TempDir
    Path dir;

    private static Duration duration() {
        String value = System.getProperty("cosid.chaos.seconds", "");
        return Duration.ofSeconds(value.isBlank() ? 15 : Long.parseLong(value.trim()));
    }

    @Test
    void postgresql() throws Exception {
        try (PostgresServer server = PostgresServer.started()) {
            new ChaosRun(server, server.jdbcUrl(), dir, 1, 4).run(duration());
        }
    }

    @Test
    void redis() throws Exception {
        try (RedisServer server = RedisServer.started()) {
            new ChaosRun(server, server.url(), dir, 2, 4).run(duration());
        }
    }

    @Test
    void zookeeper() throws Exception {
        try (ZooKeeperServer server = ZooKeeperServer.started()) {
            new ChaosRun(server, server.url(), dir, 3, 4).run(duration());
        }
    }

    /**
     * One member at a time, killed (SIGKILL) and restarted, or paused (SIGSTOP/SIGCONT); each kind
     * strikes the leader first, then a follower, and so on. With seed 5 the 15 s run of the test
     * command kills and pauses three members each, the leader among them.
     */
    @Test
    void etcd() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.started()) {
            new ChaosRun(cluster, cluster.url(), dir, 5, 4, new EtcdMemberFaults(cluster)).run(duration());
        }
    }

    private static final class EtcdMemberFaults implements ChaosRun.StoreFaults {

        private final EtcdCluster cluster;
        private int restarts;
        private int pauses;

        EtcdMemberFaults(EtcdCluster cluster) {
            this.cluster = cluster;
        }

        /** The leader, or a follower: the first one after the leader in the member order. */
        private EtcdCluster.Member target(boolean leader) {
            EtcdCluster.Member current = cluster.leader();
            if (leader) {
                return current;
            }
            List<EtcdCluster.Member> members = cluster.members();
            return members.get((members.indexOf(current) + 1) % members.size());
        }

        @Override
        public String restart(Random random) {
            boolean leader = restarts++ % 2 == 0;
            EtcdCluster.Member member = target(leader);
            member.kill();
            Await.elapse(Duration.ofMillis(500 + random.nextInt(1_500)));
            member.start();
            cluster.awaitHealthy();
            return "etcd " + (leader ? "leader" : "follower") + " killed (SIGKILL) and restarted";
        }

        @Override
        public String pause(Random random, Duration pause) {
            boolean leader = pauses++ % 2 == 0;
            EtcdCluster.Member member = target(leader);
            member.pause();
            Await.elapse(pause);
            member.resume();
            return "etcd " + (leader ? "leader" : "follower") + " paused (SIGSTOP/SIGCONT)";
        }
    }
}
