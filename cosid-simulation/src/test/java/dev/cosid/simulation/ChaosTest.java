package dev.cosid.simulation;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chaos run per server store: {@code cosid.chaos.seconds} each (15 by default; raise it for a long
 * run). Fails on any duplicate id. The Redis Cluster and the ZooKeeper ensemble runs replace the
 * whole-store faults by a member's: a primary killed and its replica promoted, or the namespace's slot
 * moved to another primary; one ZooKeeper server (the leader or a follower) killed and restarted.
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

    /** The namespace every chaos worker uses: its keys live in this key's hash slot. */
    private static final String CHAOS_SLOTS_KEY = "cosid:{chaos}:slots";

    @Test
    void redisCluster() throws Exception {
        try (RedisCluster cluster = RedisCluster.started()) {
            // TAKEOVER GUARD: Redis Cluster replicates asynchronously, so a killed primary can take the last
            // renewals with it; once the takeover guard lands, switch it on for this run here (one line).
            String storeUrl = cluster.url();
            new ChaosRun(List.of(
                    ChaosRun.StoreFault.of("cluster primary killed (SIGKILL), its replica promoted",
                            random -> cluster.killPrimaryAndPromote(CHAOS_SLOTS_KEY)),
                    ChaosRun.StoreFault.of("namespace slot moved to another primary (resharding)",
                            random -> cluster.moveSlot(CHAOS_SLOTS_KEY,
                                    () -> Await.elapse(Duration.ofMillis(200 + random.nextInt(800)))))),
                    storeUrl, dir, 4, 4).run(duration());
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
