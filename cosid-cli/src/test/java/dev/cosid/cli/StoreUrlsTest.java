package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.testkit.servers.ZooKeeperServer;
import dev.cosid.time.Clock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every store URL through the command line, and the errors of unreachable or unprepared stores. */
class StoreUrlsTest {

    @TempDir
    static Path dir;
    private static PostgresServer postgres;
    private static MariaDbServer mariadb;
    private static RedisServer redis;
    private static ZooKeeperServer zookeeper;

    @BeforeAll
    static void startServers() {
        postgres = PostgresServer.started();
        mariadb = MariaDbServer.started();
        redis = RedisServer.started();
        zookeeper = ZooKeeperServer.started();
    }

    @AfterAll
    static void stopServers() {
        for (ServerProcess server : new ServerProcess[] {postgres, mariadb, redis, zookeeper}) {
            if (server != null) {
                server.close();
            }
        }
    }

    private static String[] run(String... args) {
        Cli result = Cli.run(args);
        return new String[] {String.valueOf(result.status()), result.out(), result.err()};
    }

    @Test
    void generateAndLeasesWorkWithEveryStoreUrl() {
        List<String> urls = List.of("sqlite:" + dir.resolve("cosid.db"), "jdbc:h2:" + dir.resolve("h2"),
                postgres.jdbcUrl(), mariadb.jdbcUrl(), mariadb.jdbcUrl().replace("jdbc:mariadb:", "jdbc:mysql:"),
                redis.url(), zookeeper.url());
        for (String url : urls) {
            String[] generated = run("generate", "--count", "3", "--store", url, "--namespace", "urls");
            assertEquals("0", generated[0], url + ": " + generated[2]);
            assertEquals(3, generated[1].lines().count(), url);
            String[] leases = run("leases", "--store", url, "--namespace", "urls");
            assertEquals("0", leases[0], url + ": " + leases[2]);
            assertTrue(leases[1].contains("namespace 'urls'") && leases[1].contains("1024 slots"), leases[1]);
            assertTrue(leases[1].lines().anyMatch(line -> line.startsWith("0 ")), url + ": " + leases[1]);
        }
    }

    @Test
    void anUnreachableStoreFailsWithinABoundNamingTheAddressButNotThePassword() throws Exception {
        int port = ServerProcess.freePort();
        List<String> urls = List.of(
                "jdbc:postgresql://127.0.0.1:" + port + "/cosid?user=cosid&password=hunter2",
                "jdbc:mariadb://127.0.0.1:" + port + "/cosid?user=cosid&password=hunter2",
                "redis://:hunter2@127.0.0.1:" + port,
                "zookeeper://127.0.0.1:" + port);
        Clock clock = Clock.system();
        // each form waits out its connect bound: side by side, each timed on its own
        ExecutorService pool = Executors.newFixedThreadPool(urls.size() + 1);
        try {
            List<Future<?>> checks = new ArrayList<>();
            for (String url : urls) {
                checks.add(pool.submit(() -> {
                    long started = clock.monotonicNanos();
                    LeaseStoreException failure = assertThrows(LeaseStoreException.class, () -> LeaseStores.open(url));
                    long millis = (clock.monotonicNanos() - started) / 1_000_000;
                    assertTrue(millis < 15_000, url + " took " + millis + " ms");
                    assertTrue(failure.getMessage().contains("127.0.0.1:" + port), failure.getMessage());
                    assertFalse(failure.getMessage().contains("hunter2"), failure.getMessage());
                }));
            }
            Future<String[]> leases = pool.submit(() -> run("leases", "--store", urls.get(0)));
            for (Future<?> check : checks) {
                check.get(60, TimeUnit.SECONDS);
            }
            checkLeasesLine(leases.get(60, TimeUnit.SECONDS), port);
        } finally {
            pool.shutdownNow();
        }
    }

    private static void checkLeasesLine(String[] cli, int port) {
        assertEquals("1", cli[0]);
        assertTrue(cli[2].contains("cannot reach jdbc:postgresql://127.0.0.1:" + port), cli[2]);
        assertFalse(cli[2].contains("hunter2"), cli[2]);
        assertEquals(1, cli[2].strip().lines().count(), cli[2]);
    }

    @Test
    void aMissingSchemaSaysWhichDdlToRun() throws Exception {
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE noschema");
        }
        String url = postgres.jdbcUrl().replace("/postgres?", "/noschema?") + "&createSchema=false";
        LeaseStoreException missing = assertThrows(LeaseStoreException.class, () -> LeaseStores.open(url).close());
        assertTrue(missing.getMessage().contains("./cosid schema --dialect postgresql"), missing.getMessage());
        assertTrue(missing.getMessage().contains("CREATE TABLE IF NOT EXISTS cosid_slot"), missing.getMessage());
        String[] h2 = run("leases", "--store", "jdbc:h2:mem:empty;createSchema=false");
        assertEquals("1", h2[0]);
        assertTrue(h2[2].contains("./cosid schema --dialect h2"), h2[2]);
    }

    @Test
    void aZooKeeperChrootIsCreatedWhenMissing() throws Exception {
        String url = zookeeper.url() + "/apps/ids";
        String[] generated = run("generate", "--count", "3", "--store", url, "--namespace", "rooted");
        assertEquals("0", generated[0], generated[2]);
        assertEquals(3, generated[1].lines().count());
        String[] leases = run("leases", "--store", url, "--namespace", "rooted");
        assertEquals("0", leases[0], leases[2]);
        assertTrue(leases[1].startsWith("namespace 'rooted' in " + url + ": 1024 slots"), leases[1]);
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(url.substring("zookeeper://".length(),
                url.indexOf('/', "zookeeper://".length())), new RetryOneTime(100))) {
            client.start();
            assertTrue(client.blockUntilConnected(10, TimeUnit.SECONDS));
            assertNotNull(client.checkExists().forPath("/apps/ids/cosid/namespaces/rooted"), "the records live under "
                    + "the chroot");
            assertNull(client.checkExists().forPath("/cosid/namespaces/rooted"));
        }
        String[] bad = run("leases", "--store", zookeeper.url() + "/apps/../x");
        assertEquals("2", bad[0], bad[2]);
        assertTrue(bad[2].contains("the chroot '/apps/../x' of store URL"), bad[2]);
    }

    @Test
    void noSecretOfAnyUrlFormReachesStdoutOrStderr() throws Exception {
        try (Connection connection = DriverManager.getConnection(mariadb.jdbcUrl());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE USER IF NOT EXISTS 'masked'@'%' IDENTIFIED BY 'the-right-one'");
        }
        int closed = ServerProcess.freePort();
        Path legacy = Files.createDirectories(dir.resolve("legacy"));
        Files.writeString(legacy.resolve("orders__host-a"), "3|1767225600000\n");
        Map<String, Integer> forms = new LinkedHashMap<>();
        // nothing listens: the store cannot be reached (1)
        forms.put("jdbc:mariadb://u:SECRET123@127.0.0.1:" + closed + "/x", 1);
        forms.put("jdbc:mariadb://127.0.0.1:" + closed + "/x?user=u&pwd=SECRET123", 1);
        forms.put("jdbc:mysql://127.0.0.1:" + closed + "/x?user=u&password=SECRET123", 1);
        forms.put("jdbc:postgresql://u:SECRET123@127.0.0.1:" + closed + "/x", 1);
        forms.put("jdbc:postgresql://127.0.0.1:" + closed + "/x?user=u&password=SECRET123&ssl=false", 1);
        forms.put("jdbc:h2:tcp://127.0.0.1:" + closed + "/x;USER=sa;PASSWORD=SECRET123", 1);
        forms.put("redis://u:SECRET123@127.0.0.1:" + closed, 1);
        forms.put("redis://SECRET123@127.0.0.1:" + closed, 1);
        forms.put("rediss://:SECRET123@127.0.0.1:" + closed + "/0?waitReplicas=1", 1);
        // real servers that refuse the password (1)
        String server = "127.0.0.1:" + mariadb.port() + "/cosid";
        forms.put("jdbc:mariadb://masked:SECRET123@" + server, 1);
        forms.put("jdbc:mariadb://" + server + "?user=masked&pwd=SECRET123", 1);
        forms.put("jdbc:mysql://" + server + "?user=masked&password=SECRET123", 1);
        forms.put("redis://nobody:SECRET123@" + redis.url().substring("redis://".length()), 1);
        // bad input (2): user info ZooKeeper cannot carry, schemes CosId does not know
        forms.put("zookeeper://u:SECRET123@127.0.0.1:" + zookeeper.port(), 2);
        forms.put("jdbc:oracle:thin:u/SECRET123@127.0.0.1:" + closed + "/x", 2);
        forms.put("mongodb://u:SECRET123@127.0.0.1:" + closed + "/x", 2);
        forms.put("u:SECRET123@127.0.0.1", 2);
        // most forms wait out the 5 s connect bound: run them all side by side
        ExecutorService pool = Executors.newFixedThreadPool(forms.size() + 2);
        try {
            List<Future<List<String>>> checks = new ArrayList<>();
            for (Map.Entry<String, Integer> form : forms.entrySet()) {
                checks.add(pool.submit(() -> check(form.getKey(), form.getValue(), legacy)));
            }
            List<Future<String[]>> migrations = new ArrayList<>();
            for (String url : List.of("jdbc:oracle:thin:u/SECRET123@127.0.0.1:" + closed + "/x",
                    "jdbc:mariadb://u:SECRET123@127.0.0.1:" + closed + "/x")) {
                migrations.add(pool.submit(() -> run("migrate", "--from-jdbc", url, "--to-state-file",
                        dir.resolve("m-" + Integer.toHexString(url.hashCode()) + ".state").toString(), "--slot", "0")));
            }
            List<String> failures = new ArrayList<>();
            for (Future<List<String>> check : checks) {
                failures.addAll(check.get(120, TimeUnit.SECONDS));
            }
            assertEquals(List.of(), failures);
            for (Future<String[]> migration : migrations) {
                String[] migrate = migration.get(120, TimeUnit.SECONDS);
                assertEquals("1", migrate[0], migrate[2]);
                assertEquals(1, migrate[2].strip().lines().count(), migrate[2]);
                assertFalse((migrate[1] + migrate[2]).contains("SECRET123"), migrate[2]);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs the commands that take a store URL and says what went wrong: a status, a second line, a secret. */
    private static List<String> check(String url, int status, Path legacy) {
        Map<String, String[]> runs = new LinkedHashMap<>();
        runs.put("generate --store", run("generate", "--store", url));
        if (status == 2 || url.contains("masked:SECRET123")) {
            runs.put("generate --store=", run("generate", "--store=" + url));
            runs.put("leases --store", run("leases", "--store", url));
            runs.put("migrate --to-store", run("migrate", "--from-file", legacy.toString(), "--to-store", url));
        }
        List<String> failures = new ArrayList<>();
        runs.forEach((command, result) -> {
            String what = command + " " + url + ": status " + result[0] + ", stderr " + result[2];
            if (!result[0].equals(String.valueOf(status)) || result[2].strip().lines().count() != 1
                    || (!command.startsWith("migrate") && !result[1].isEmpty())
                    || (result[1] + result[2]).contains("SECRET123")) {
                failures.add(what);
            }
        });
        return failures;
    }

    @Test
    void aPasswordInTheUserInfoOfAJdbcUrlIsHandedToTheDriverAndNeverShown() throws Exception {
        try (Connection connection = DriverManager.getConnection(mariadb.jdbcUrl());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE USER IF NOT EXISTS 'ids'@'%' IDENTIFIED BY 'SECRET123'");
            statement.execute("GRANT ALL ON cosid.* TO 'ids'@'%'");
        }
        String url = "jdbc:mariadb://ids:SECRET123@127.0.0.1:" + mariadb.port() + "/cosid";
        String[] generated = run("generate", "--count", "2", "--store", url, "--namespace", "userinfo");
        assertEquals("0", generated[0], generated[2]);
        String[] leases = run("leases", "--store", url, "--namespace", "userinfo");
        assertEquals("0", leases[0], leases[2]);
        assertTrue(leases[1].startsWith("namespace 'userinfo' in jdbc:mariadb://ids:***@127.0.0.1:"), leases[1]);
        assertFalse((generated[2] + leases[1] + leases[2]).contains("SECRET123"));
    }

    @Test
    void schemaPrintsTheDdlOfEachDialect() {
        for (String dialect : List.of("sqlite", "postgresql", "mariadb", "mysql", "h2")) {
            String[] schema = run("schema", "--dialect", dialect);
            assertEquals("0", schema[0]);
            assertTrue(schema[1].contains("CREATE TABLE IF NOT EXISTS cosid_namespace"), schema[1]);
            assertTrue(schema[1].contains("CREATE TABLE IF NOT EXISTS cosid_slot"), schema[1]);
            assertTrue(schema[1].contains("CREATE TABLE IF NOT EXISTS cosid_segment"), schema[1]);
        }
        String[] unknown = run("schema", "--dialect", "oracle");
        assertEquals("2", unknown[0]);
        assertTrue(unknown[2].contains("unknown dialect 'oracle'"), unknown[2]);
    }
}
