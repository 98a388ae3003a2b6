package dev.cosid.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.JdbcFence;
import dev.cosid.shedlock.app.ShedLockApp;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance on Spring Boot 4: two instances of a ShedLock application ({@link ShedLockApp}), each a process of
 * its own, on one real PostgreSQL. Their {@code @Scheduled @SchedulerLock} job runs on one instance at a time. Then
 * one instance is frozen (SIGSTOP) in a run that holds the lock and is about to write, past its
 * {@code lockAtMostFor} of 2 s, while the other takes the lock and writes; then it wakes (SIGCONT) and writes what
 * it was about to. With {@link CosIdLockProvider} and the JDBC fence that write is refused and none of its rows
 * lands after its successor's; with ShedLock's own JDBC provider and a plain insert (the negative control) it lands.
 */
class ShedLockAppsOnPostgresTest {

    private static final Pattern ABOUT_TO_WRITE = Pattern.compile("app: about to write (\\d+) (\\d+)");
    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @TempDir
    Path dir;

    private final Map<String, Process> apps = new ConcurrentHashMap<>();

    @AfterEach
    void stopApps() throws InterruptedException {
        for (Process app : apps.values()) {
            signal(app, "CONT"); // a frozen process cannot act on SIGTERM
            app.destroy();
        }
        for (Process app : apps.values()) {
            if (!app.waitFor(20, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(POSTGRES.server().jdbcUrl());
    }

    private static void execute(String... statements) throws SQLException {
        try (Connection c = connect(); Statement statement = c.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /** Sends a signal to a process this test started. */
    private static void signal(Process process, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).start();
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS), "kill -" + name);
        } catch (IOException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private Process start(String member, String provider, String lock, String table) throws IOException {
        String url = POSTGRES.server().jdbcUrl();
        Process app = new ProcessBuilder(ChildJvm.command(List.of("-Xmx256m"), ShedLockApp.class.getName(), List.of(
                "--spring.datasource.url=" + url, "--spring.main.banner-mode=off", "--spring.main.keep-alive=true",
                "--logging.level.root=WARN", "--spring.datasource.hikari.maximum-pool-size=2",
                "--app.provider=" + provider, "--app.store=" + url, "--app.member=" + member, "--app.lock=" + lock,
                "--app.table=" + table, "--app.dir=" + dir)))
                .redirectOutput(dir.resolve(member + ".out").toFile())
                .redirectError(dir.resolve(member + ".err").toFile())
                .start();
        apps.put(member, app);
        return app;
    }

    private String out(String member) {
        return read(member + ".out");
    }

    private String read(String file) {
        try {
            Path path = dir.resolve(file);
            return Files.exists(path) ? Files.readString(path, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** What both instances printed, for a failure message. */
    private String both() {
        StringBuilder text = new StringBuilder();
        for (String member : List.of("a", "b")) {
            Process app = apps.get(member);
            text.append("\n").append(member).append(app == null ? " (not started)" : app.isAlive() ? " (alive)"
                    : " (exited " + app.exitValue() + ")").append(": ").append(out(member)).append(read(member + ".err"));
        }
        return text.toString();
    }

    /** One row a run wrote: who, which run, under which lock generation, in the table's order. */
    private record Row(String member, int seq, long generation) {
    }

    private static List<Row> rows(String table) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection c = connect(); Statement statement = c.createStatement();
             ResultSet result = statement.executeQuery("SELECT member, seq, generation FROM " + table
                     + " ORDER BY id")) {
            while (result.next()) {
                rows.add(new Row(result.getString(1), result.getInt(2), result.getLong(3)));
            }
        }
        return rows;
    }

    private static long count(String table, String member) {
        try {
            return rows(table).stream().filter(row -> row.member().equals(member)).count();
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    /** The rows written under a lock generation older than one written before them: a deposed holder's, late. */
    private static List<Row> staleRows(List<Row> rows) {
        List<Row> stale = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        for (Row row : rows) {
            if (row.generation() < newest) {
                stale.add(row);
            }
            newest = Math.max(newest, row.generation());
        }
        return stale;
    }

    /** The runs that ended, by the database's clock, checked pairwise: none started before the one before ended. */
    private static List<String> overlappingRuns(String table, int frozenSeq) throws SQLException {
        List<String> overlaps = new ArrayList<>();
        try (Connection c = connect(); Statement statement = c.createStatement();
             ResultSet result = statement.executeQuery("SELECT member, seq, started, ended FROM " + table + "_runs "
                     + "WHERE ended IS NOT NULL AND NOT (member = 'a' AND seq = " + frozenSeq + ") ORDER BY started")) {
            String before = null;
            java.sql.Timestamp endedBefore = null;
            while (result.next()) {
                String run = result.getString(1) + "#" + result.getInt(2);
                if (endedBefore != null && result.getTimestamp(3).before(endedBefore)) {
                    overlaps.add(before + " and " + run);
                }
                before = run;
                endedBefore = result.getTimestamp(4);
            }
        }
        return overlaps;
    }

    /**
     * Runs both instances, freezes {@code a} in a run about to write past its lock, lets {@code b} take over, wakes
     * {@code a} and lets it write; returns the seq and generation of {@code a}'s frozen run.
     */
    private long[] freezeTheHolderPastItsLock(String provider, String table) throws Exception {
        String lock = "ticker-" + UUID.randomUUID().toString().substring(0, 8);
        execute("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, member TEXT, seq INTEGER, generation BIGINT)",
                "CREATE TABLE " + table + "_runs (id BIGSERIAL PRIMARY KEY, member TEXT, seq INTEGER, "
                        + "started TIMESTAMPTZ, ended TIMESTAMPTZ)",
                "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY, "
                        + "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL)");
        try (Connection c = connect()) {
            JdbcFence.standard().createTable(c);
        }
        Process a = start("a", provider, lock, table);
        Process b = start("b", provider, lock, table);
        Await.until(() -> out("a").contains("app: started a") && out("b").contains("app: started b"),
                Duration.ofSeconds(120), () -> "both instances started" + both());
        Await.until(() -> count(table, "a") >= 3 && count(table, "b") >= 3, Duration.ofSeconds(30),
                () -> "both instances ran the job" + both());

        Files.createFile(dir.resolve("a.freeze"));
        Await.until(() -> ABOUT_TO_WRITE.matcher(out("a")).find(), Duration.ofSeconds(30),
                () -> "a holds the lock and is about to write" + both());
        signal(a, "STOP"); // frozen with the write on its way, past its lockAtMostFor
        Matcher frozen = ABOUT_TO_WRITE.matcher(out("a"));
        assertTrue(frozen.find());
        long seq = Long.parseLong(frozen.group(1));
        long generation = Long.parseLong(frozen.group(2));
        Await.until(() -> {
            try {
                return rows(table).stream().filter(row -> row.member().equals("b") && row.generation() > generation)
                        .count() >= 3;
            } catch (SQLException e) {
                throw new AssertionError(e);
            }
        }, Duration.ofSeconds(30), () -> "b took the lock once a's ran out, and wrote" + both());
        signal(a, "CONT");
        Files.createFile(dir.resolve("a.go"));
        Await.until(() -> out("a").contains("app: wrote " + seq + " ") || out("a").contains("app: refused " + seq + " "),
                Duration.ofSeconds(30), () -> "a tried the write it was about to" + both());
        long bNow = count(table, "b");
        Await.until(() -> count(table, "b") >= bNow + 2, Duration.ofSeconds(30), () -> "b goes on" + both());
        assertTrue(a.isAlive() && b.isAlive(), both());
        return new long[] {seq, generation};
    }

    @Test
    void aHolderFrozenPastItsLockHasItsFencedWriteRefusedAndNoneOfItsRowsLandsAfterItsSuccessors() throws Exception {
        String table = "fenced_" + UUID.randomUUID().toString().substring(0, 8);
        long[] frozen = freezeTheHolderPastItsLock("cosid", table);
        String a = out("a");
        assertTrue(a.contains("app: refused " + frozen[0] + " " + frozen[1] + ": role '"), a);
        assertFalse(a.contains("app: wrote " + frozen[0] + " "), a);
        List<Row> rows = rows(table);
        assertEquals(List.of(), staleRows(rows), "no row of a deposed holder after its successor's: " + rows);
        assertTrue(rows.stream().anyMatch(row -> row.member().equals("a")), "a wrote before: " + rows);
        assertEquals(List.of(), overlappingRuns(table, (int) frozen[0]), "one run at a time");
        // every lock minted its own token: no generation is shared by two runs
        assertEquals(rows.size(), rows.stream().mapToLong(Row::generation).distinct().count(), rows.toString());
    }

    @Test
    void withShedLocksOwnJdbcProviderAndAPlainInsertTheFrozenHoldersWriteLandsAfterItsSuccessors() throws Exception {
        String table = "plain_" + UUID.randomUUID().toString().substring(0, 8);
        long[] frozen = freezeTheHolderPastItsLock("jdbc", table);
        assertTrue(out("a").contains("app: wrote " + frozen[0] + " " + frozen[1]), out("a"));
        List<Row> rows = rows(table);
        List<Row> stale = staleRows(rows);
        assertEquals(List.of(new Row("a", (int) frozen[0], frozen[1])), stale,
                "the frozen holder's write landed after its successor's: " + rows);
        assertEquals(List.of(), overlappingRuns(table, (int) frozen[0]), "one run at a time, but for the frozen one");
    }
}
