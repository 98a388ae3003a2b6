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

/**
 * Leader workers on a store's transport under a real partition, their lock and their data in one PostgreSQL:
 * the primary and worker A on side A, the synchronous standby and worker B on side B, one role, lease 3 s, both
 * writing through the {@link dev.cosid.coordination.JdbcFence} into a table of the same database while they
 * lead ({@link StoreLeaderWorker}). A leads; the sides are cut while A writes; B's standby is promoted and B takes
 * the role over. The promoted server's table is then checked in commit order: no row of a deposed leader after
 * its successor's first. One round in the test command, {@code cosid.partition.rounds} (3) in the long run.
 */
class StoreLeaderPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs", "store-leader");
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Clock WALL = Clock.system();

    @Test
    void aDeposedLeadersRowsThroughTheFenceNeverLandAfterItsSuccessorsFirstOnPostgresWithASynchronousStandby()
            throws Exception {
        List<String> rounds = new ArrayList<>();
        long rows = 0;
        long changes = 0;
        long refused = 0;
        long longest = 0;
        for (int round = 1; round <= PartitionRun.ROUNDS; round++) {
            Round result = round("postgres-synchronous-" + round);
            rounds.add(result.verdict().toString());
            assertEquals(List.of(), result.verdict().stale(), "no row of a deposed leader after its successor's: "
                    + result);
            assertTrue(result.verdict().changes().stream().anyMatch(change -> change.to().member().equals("b")),
                    "b took the role over on the promoted standby: " + result);
            rows += result.verdict().writes();
            changes += result.verdict().changes().size();
            refused += result.refused();
            longest = Math.max(longest, result.verdict().longestGapMillis());
        }
        PartitionRun.record("StoreLeaderPartitionTest postgres-synchronous: " + rounds.size() + " rounds, rows "
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
                workers.add(start(net, net.a(), url, "a", role, table, logA));
                Await.until(() -> count(postgres, table, "a", false) >= 3, Duration.ofSeconds(60),
                        "a leads and writes; see " + logA);
                workers.add(start(net, net.b(), url, "b", role, table, logB));
                Await.until(() -> log(logB).contains("started"), Duration.ofSeconds(60), "b campaigns; see " + logB);
                Await.elapse(LEASE); // b has registered and waits its turn
                net.cut();
                postgres.promote();
                Await.until(() -> count(postgres, table, "b", true) >= 3, Duration.ofSeconds(60),
                        "b took the role over on the promoted standby and writes; see " + logB);
                Await.elapse(LEASE);
            } finally {
                for (Process worker : workers) {
                    worker.getOutputStream().close();
                }
                for (Process worker : workers) {
                    if (!worker.waitFor(10, TimeUnit.SECONDS)) {
                        worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
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

    private static Process start(NetworkPartition net, NetworkPartition.Side side, String url, String member,
                                 String role, String table, Path log) {
        return net.start(side, ChildJvm.command(List.of("-Xmx96m"), StoreLeaderWorker.class.getName(),
                List.of(url, url, member, Long.toString(LEASE.toMillis()), role, table)), log);
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
