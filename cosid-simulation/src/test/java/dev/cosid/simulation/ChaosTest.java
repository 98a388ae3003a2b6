package dev.cosid.simulation;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.RedisSentinelGroup;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chaos run per server store: {@code cosid.chaos.seconds} each (6 by default, 12 for the failover runs;
 * raise it for a long run, with {@code cosid.chaos.pace-micros=100} for the workers' full rate). Whatever the
 * length, the nemesis inflicts every kind of fault at least once. Fails on any duplicate id; the failover runs under asynchronous replication do
 * so only with the takeover guard on (the default here), and otherwise report the duplicates they found.
 * The clusters' runs replace the whole-store faults by a member's: an etcd member (the leader or a
 * follower) killed or paused; a Redis Cluster primary killed and its replica promoted, or the namespace's
 * slot moved to another primary; one ZooKeeper server (the leader or a follower) killed and restarted.
 *
 * <p>The runs share nothing (each starts its own servers and workers in its own directory), so they run two
 * at a time.
 */
@Execution(ExecutionMode.CONCURRENT)
class ChaosTest {

    /**
     * Whether the failover runs' workers use the takeover guard (the default), and so must find no duplicate;
     * {@code -Dcosid.chaos.takeoverGuard=false} runs them without it, as a negative control that reports the
     * duplicates an asynchronous failover caused.
     */
    private static final boolean TAKEOVER_GUARD =
            !"false".equals(System.getProperty("cosid.chaos.takeoverGuard", "true").trim());

    @TempDir
    Path dir;

    private static Duration duration() {
        return duration(6);
    }

    private static Duration duration(long seconds) {
        String value = System.getProperty("cosid.chaos.seconds", "");
        return Duration.ofSeconds(value.isBlank() ? seconds : Long.parseLong(value.trim()));
    }

    @Test
    void redisSentinelFailovers() throws Exception {
        try (RedisSentinelGroup group = RedisSentinelGroup.started()) {
            // the asynchronous mode, under the name that says what it risks: crash failovers with the guards
            String asynchronous = group.url().replace("#", "?allowRepeatedIdsOnPartition=true&waitReplicas=0#");
            new ChaosRun(group, asynchronous, dir, 4, 4).failovers(new ChaosRun.Replication() {
                @Override
                public Duration failover() {
                    return group.failover();
                }

                @Override
                public void rejoin() {
                    group.rejoin();
                }
            }).takeoverGuard(TAKEOVER_GUARD).expectUnique(TAKEOVER_GUARD).run(duration(12));
        }
    }

    @Test
    void postgresqlStandbyFailovers() throws Exception {
        try (PostgresStandbyPair pair = PostgresStandbyPair.started(false)) {
            new ChaosRun(pair, pair.jdbcUrl() + "&allowRepeatedIdsOnPartition=true", dir, 5, 4).failovers(new ChaosRun.Replication() {
                @Override
                public Duration failover() {
                    return pair.failover();
                }

                @Override
                public void rejoin() {
                    pair.rejoin();
                }
            }).takeoverGuard(TAKEOVER_GUARD).expectUnique(TAKEOVER_GUARD).run(duration(12));
        }
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
            EtcdMemberFaults faults = new EtcdMemberFaults(cluster);
            new ChaosRun(List.of(faults::restart, faults::pause), cluster.url(), dir, 5, 4).run(duration());
        }
    }

    /** Strikes the leader, then a follower, and so on, for each kind of fault. */
    private static final class EtcdMemberFaults {

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

        String restart(Random random) {
            boolean leader = restarts++ % 2 == 0;
            EtcdCluster.Member member = target(leader);
            member.kill();
            Await.elapse(Duration.ofMillis(500 + random.nextInt(1_500)));
            member.start();
            cluster.awaitHealthy();
            return "etcd " + (leader ? "leader" : "follower") + " killed (SIGKILL) and restarted";
        }

        String pause(Random random) {
            boolean leader = pauses++ % 2 == 0;
            EtcdCluster.Member member = target(leader);
            member.pause();
            Await.elapse(Duration.ofMillis(1_000 + random.nextInt(2_000)));
            member.resume();
            return "etcd " + (leader ? "leader" : "follower") + " paused (SIGSTOP/SIGCONT)";
        }
    }

    /** The namespace every chaos worker uses: its keys live in this key's hash slot. */
    private static final String CHAOS_SLOTS_KEY = "cosid:{chaos}:slots";

    @Test
    void redisCluster() throws Exception {
        try (RedisCluster cluster = RedisCluster.started()) {
            // Redis Cluster replicates asynchronously: a killed primary can take the last renewals with it
            new ChaosRun(List.of(
                    random -> {
                        // a primary without a healthy replica would be an outage, not a failover: say so and move on
                        String unreplicated = cluster.awaitReplicaOfPrimary(CHAOS_SLOTS_KEY, Duration.ofSeconds(30));
                        if (unreplicated != null) {
                            System.out.println("no healthy replica of the namespace's primary: " + unreplicated);
                            return "cluster primary kill skipped: no healthy replica within 30 s";
                        }
                        cluster.killPrimaryAndPromote(CHAOS_SLOTS_KEY);
                        return "cluster primary killed (SIGKILL), its replica promoted";
                    },
                    ChaosRun.StoreFault.of("namespace slot moved to another primary (resharding)",
                            random -> cluster.moveSlot(CHAOS_SLOTS_KEY,
                                    () -> Await.elapse(Duration.ofMillis(200 + random.nextInt(800)))))),
                    cluster.url(), dir, 4, 4).takeoverGuard(TAKEOVER_GUARD).expectUnique(TAKEOVER_GUARD)
                    .run(duration());
        }
    }

    @Test
    void zookeeperEnsemble() throws Exception {
        try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.started()) {
            new ChaosRun(List.of(
                    ChaosRun.StoreFault.of("zookeeper leader killed (SIGKILL) and restarted",
                            random -> ensemble.killAndRestart(ensemble.leader())),
                    ChaosRun.StoreFault.of("zookeeper follower killed (SIGKILL) and restarted",
                            random -> ensemble.killAndRestart((ensemble.leader() + 1 + random.nextInt(2))
                                    % ensemble.size()))),
                    ensemble.url(), dir, 5, 4).run(duration());
        }
    }
}
