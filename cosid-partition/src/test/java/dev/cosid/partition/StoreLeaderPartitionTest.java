package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Leader workers on a store's transport under a real partition, one role, lease 3 s, both writing through the
 * {@link dev.cosid.coordination.JdbcFence} into a PostgreSQL table while they lead ({@link StoreLeaderWorker}).
 * A leads; the sides are cut while A writes; side B's store fails over and B takes the role over. The table is
 * then checked in commit order: no row of a deposed leader after its successor's first, and B took over.
 *
 * <ul>
 *   <li>PostgreSQL with a synchronous standby, the lock and the data in one database: the primary and worker A on
 *       side A, the standby and worker B on side B; B's standby is promoted. One round in the test command,
 *       {@code cosid.partition.rounds} (3) in the long run.</li>
 *   <li>Redis behind Sentinel with confirmed writes ({@code waitReplicas=1}, as {@link SentinelPartitionTest}
 *       places it: the primary with A, the replicas and sentinels with B), and an etcd cluster of three (as
 *       {@link EtcdPartitionTest}: its leader with A, the two others with B): the lock in the store, the fence
 *       table and the rows in a PostgreSQL in the test's own namespace that both sides reach throughout
 *       ({@link TestSidePostgres}), so the cut separates only the store. After B writes the sides heal and A
 *       comes back. In the long run only ({@code -Dcosid.partition.long=true}), {@code cosid.partition.rounds}
 *       (3) rounds each. No negative control here: {@link KafkaLeaderFaultTest} has one.</li>
 * </ul>
 */
class StoreLeaderPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs", "store-leader");
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Clock WALL = Clock.system();

    @Test
    void aDeposedLeadersRowsThroughTheFenceNeverLandAfterItsSuccessorsFirstOnPostgresWithASynchronousStandby()
            throws Exception {
        rounds("postgres-synchronous", StoreLeaderPartitionTest::round);
    }

    @Test
    @EnabledIfSystemProperty(named = "cosid.partition.long", matches = "true")
    void aDeposedLeadersRowsThroughTheFenceNeverLandAfterItsSuccessorsFirstOnRedisSentinelWithConfirmedWrites()
            throws Exception {
        rounds("sentinel-confirmed", name -> {
            try (NetworkPartition net = NetworkPartition.created();
                    TestSidePostgres data = TestSidePostgres.started(net);
                    SentinelSetup redis = SentinelSetup.started(net)) {
                return lockElsewhere(name, net, data, redis.url("waitReplicas=1"),
                        () -> redis.awaitFailover(Duration.ofSeconds(30)));
            }
        });
    }

    @Test
    @EnabledIfSystemProperty(named = "cosid.partition.long", matches = "true")
    void aDeposedLeadersRowsThroughTheFenceNeverLandAfterItsSuccessorsFirstOnAnEtcdClusterOfThree()
            throws Exception {
        rounds("etcd", name -> {
            try (NetworkPartition net = NetworkPartition.created();
                    TestSidePostgres data = TestSidePostgres.started(net);
                    EtcdSetup etcd = EtcdSetup.started(net)) {
                return lockElsewhere(name, net, data, etcd.url(), () -> etcd.awaitNewLeader(Duration.ofSeconds(30)));
            }
        });
    }

    /** Runs one round of a setup on fresh namespaces and servers. */
    @FunctionalInterface
    private interface RoundOf {
        Round run(String name) throws Exception;
    }

    /**
     * Runs {@link PartitionRun#ROUNDS} rounds of a setup, each checked: no stale row, and B took the role over;
     * records the figures of all of them.
     */
    private static void rounds(String setup, RoundOf one) throws Exception {
        List<String> rounds = new ArrayList<>();
        long rows = 0;
        long changes = 0;
        long refused = 0;
        long longest = 0;
        for (int round = 1; round <= PartitionRun.ROUNDS; round++) {
            Round result = one.run(setup + "-" + round);
            rounds.add(result.verdict().toString());
            assertEquals(List.of(), result.verdict().stale(), "no row of a deposed leader after its successor's: "
                    + result);
            assertTrue(result.verdict().changes().stream().anyMatch(change -> change.to().member().equals("b")),
                    "b took the role over: " + result);
            rows += result.verdict().writes();
            changes += result.verdict().changes().size();
            refused += result.refused();
            longest = Math.max(longest, result.verdict().longestGapMillis());
        }
        PartitionRun.record("StoreLeaderPartitionTest " + setup + ": " + rounds.size() + " rounds, rows "
                + rows + ", leader changes " + changes + ", stale rows 0, fenced writes refused " + refused
                + ", longest without a leader " + longest + " ms (lease " + LEASE.toMillis() + " ms, stagger "
                + LEASE.dividedBy(6).toMillis() + " ms); " + rounds);
    }

    /** One round's verdict over the promoted server's table and the refusals the workers logged. */
    private record Round(LeaderChecker.Verdict verdict, long refused, String logs) {
    }

    private static Round round(String name) throws Exception {
        Path dir = RUNS.resolve(name);
        Files.createDirectories(dir);
        String role = "store-" + Long.toHexString(WALL.nowMillis());
        String table = role.replace('-', '_') + "_rows";
        try (NetworkPartition net = NetworkPartition.created();
                PostgresSetup postgres = PostgresSetup.started(net, true)) {
            postgres.primarySql("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, member TEXT, token TEXT, "
                    + "seq BIGINT, wall BIGINT)");
            postgres.primarySql("CREATE TABLE IF NOT EXISTS " + dev.cosid.coordination.JdbcFence.DEFAULT_TABLE
                    + " (role VARCHAR(249) NOT NULL PRIMARY KEY, producer_id BIGINT NOT NULL, producer_epoch INTEGER "
                    + "NOT NULL)");
            String url = postgres.url("");
            List<Process> workers = new ArrayList<>();
            Path logA = dir.resolve("a.log");
            Path logB = dir.resolve("b.log");
            Files.deleteIfExists(logA);
            Files.deleteIfExists(logB);
            try {
                workers.add(start(net, net.a(), url, url, "a", role, table, logA));
                Await.until(() -> count(postgres, table, "a", false) >= 3, Duration.ofSeconds(60),
                        "a leads and writes; see " + logA);
                workers.add(start(net, net.b(), url, url, "b", role, table, logB));
                Await.until(() -> log(logB).contains("started"), Duration.ofSeconds(60), "b campaigns; see " + logB);
                Await.elapse(LEASE); // b has registered and waits its turn
                net.cut();
                postgres.promote();
                Await.until(() -> count(postgres, table, "b", true) >= 3, Duration.ofSeconds(60),
                        "b took the role over on the promoted standby and writes; see " + logB);
                Await.elapse(LEASE);
            } finally {
                stop(workers);
            }
            List<LeaderChecker.Write> order = new ArrayList<>();
            for (String line : postgres.standbySql("SELECT member || ' ' || token || ' ' || seq || ' ' || wall FROM "
                    + table + " ORDER BY id").split("\n")) {
                if (!line.isBlank()) {
                    order.add(LeaderChecker.Write.parse(line.strip()));
                }
            }
            long refused = (log(logA) + log(logB)).lines().filter(line -> line.contains(" refused ")).count();
            return new Round(LeaderChecker.check(order), refused, logA + ", " + logB);
        }
    }

    /**
     * One round with the lock in a replicated store inside the sides and the rows in {@code data}, which both
     * sides reach throughout: A leads and writes; B campaigns; the sides are cut; once the store's side B has
     * failed over B takes the role over and writes; the sides heal and A, back on the store, stands by.
     */
    private static Round lockElsewhere(String name, NetworkPartition net, TestSidePostgres data, String store,
                                       Runnable failover) throws Exception {
        Path dir = RUNS.resolve(name);
        Files.createDirectories(dir);
        String role = "store-" + Long.toHexString(WALL.nowMillis());
        String table = role.replace('-', '_') + "_rows";
        data.sql("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, member TEXT, token TEXT, seq BIGINT, "
                + "wall BIGINT)");
        data.sql("CREATE TABLE IF NOT EXISTS " + dev.cosid.coordination.JdbcFence.DEFAULT_TABLE
                + " (role VARCHAR(249) NOT NULL PRIMARY KEY, producer_id BIGINT NOT NULL, producer_epoch INTEGER "
                + "NOT NULL)");
        List<Process> workers = new ArrayList<>();
        Path logA = dir.resolve("a.log");
        Path logB = dir.resolve("b.log");
        Files.deleteIfExists(logA);
        Files.deleteIfExists(logB);
        try {
            workers.add(start(net, net.a(), store, data.url(net.a()), "a", role, table, logA));
            Await.until(() -> count(data, table, "a") >= 3, Duration.ofSeconds(60), "a leads and writes; see " + logA);
            workers.add(start(net, net.b(), store, data.url(net.b()), "b", role, table, logB));
            Await.until(() -> log(logB).contains("started"), Duration.ofSeconds(60), "b campaigns; see " + logB);
            Await.elapse(LEASE); // b has registered and waits its turn
            net.cut();
            failover.run();
            Await.until(() -> count(data, table, "b") >= 3, Duration.ofSeconds(60),
                    "b took the role over on side B's store and writes; see " + logB);
            Await.elapse(LEASE);
            net.heal();
            Await.elapse(LEASE.multipliedBy(2)); // a, back on the healed store, finds b leading
        } finally {
            stop(workers);
        }
        List<LeaderChecker.Write> order = new ArrayList<>();
        for (String line : data.sql("SELECT member || ' ' || token || ' ' || seq || ' ' || wall FROM " + table
                + " ORDER BY id").split("\n")) {
            if (!line.isBlank()) {
                order.add(LeaderChecker.Write.parse(line.strip()));
            }
        }
        long refused = (log(logA) + log(logB)).lines().filter(line -> line.contains(" refused ")).count();
        return new Round(LeaderChecker.check(order), refused, logA + ", " + logB);
    }

    private static void stop(List<Process> workers) throws IOException, InterruptedException {
        for (Process worker : workers) {
            worker.getOutputStream().close();
        }
        for (Process worker : workers) {
            if (!worker.waitFor(10, TimeUnit.SECONDS)) {
                worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static Process start(NetworkPartition net, NetworkPartition.Side side, String store, String fence,
                                 String member, String role, String table, Path log) {
        return net.start(side, ChildJvm.command(List.of("-Xmx96m"), StoreLeaderWorker.class.getName(),
                List.of(store, fence, member, Long.toString(LEASE.toMillis()), role, table)), log);
    }

    private static long count(TestSidePostgres data, String table, String member) {
        try {
            return Long.parseLong(data.sql("SELECT count(*) FROM " + table + " WHERE member = '" + member + "'"));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static long count(PostgresSetup postgres, String table, String member, boolean promoted) {
        String sql = "SELECT count(*) FROM " + table + " WHERE member = '" + member + "'";
        try {
            return Long.parseLong(promoted ? postgres.standbySql(sql) : postgres.primarySql(sql));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static String log(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
