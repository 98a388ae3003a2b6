package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
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
    void anUnreachableStoreFailsWithinABoundNamingTheAddressButNotThePassword() {
        int port = ServerProcess.freePort();
        List<String> urls = List.of(
                "jdbc:postgresql://127.0.0.1:" + port + "/cosid?user=cosid&password=hunter2",
                "jdbc:mariadb://127.0.0.1:" + port + "/cosid?user=cosid&password=hunter2",
                "redis://:hunter2@127.0.0.1:" + port,
                "zookeeper://127.0.0.1:" + port);
        Clock clock = Clock.system();
        for (String url : urls) {
            long started = clock.monotonicNanos();
            LeaseStoreException failure = assertThrows(LeaseStoreException.class, () -> LeaseStores.open(url));
            long millis = (clock.monotonicNanos() - started) / 1_000_000;
            assertTrue(millis < 15_000, url + " took " + millis + " ms");
            assertTrue(failure.getMessage().contains("127.0.0.1:" + port), failure.getMessage());
            assertFalse(failure.getMessage().contains("hunter2"), failure.getMessage());
        }
        String[] cli = run("leases", "--store", urls.get(0));
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
    void schemaPrintsTheDdlOfEachDialect() {
        for (String dialect : List.of("sqlite", "postgresql", "mariadb", "mysql", "h2")) {
            String[] schema = run("schema", "--dialect", dialect);
            assertEquals("0", schema[0]);
            assertTrue(schema[1].contains("CREATE TABLE IF NOT EXISTS cosid_namespace"), schema[1]);
            assertTrue(schema[1].contains("CREATE TABLE IF NOT EXISTS cosid_slot"), schema[1]);
        }
        String[] unknown = run("schema", "--dialect", "oracle");
        assertEquals("2", unknown[0]);
        assertTrue(unknown[2].contains("unknown dialect 'oracle'"), unknown[2]);
    }
}
