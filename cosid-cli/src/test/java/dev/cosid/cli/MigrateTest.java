package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.StateFile;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ./cosid migrate from each CosId 2.x/3.x format, into a state file and into a store. */
class MigrateTest {

    private static final long LAST = 1_796_000_000_000L;
    private static final long FIVE_MINUTES = Duration.ofMinutes(5).toMillis();

    @TempDir
    Path dir;
    private static PostgresServer postgres;
    private static RedisServer redis;

    @BeforeAll
    static void startServers() {
        postgres = PostgresServer.started();
        redis = RedisServer.started();
    }

    @AfterAll
    static void stopServers() {
        if (postgres != null) {
            postgres.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static String[] run(String... args) {
        Cli result = Cli.run(args);
        return new String[] {String.valueOf(result.status()), result.out(), result.err()};
    }

    private Path legacyFiles() throws Exception {
        Path states = Files.createDirectories(dir.resolve(".cosid-machine-state"));
        Files.writeString(states.resolve("orders__host-a"), "3|" + (LAST - 60_000));
        Files.writeString(states.resolve("orders__host-b"), "7|" + LAST + "\n");
        return states;
    }

    @Test
    void localMachineStateFilesBecomeAStateFileFloor() throws Exception {
        Path state = dir.resolve("state");
        String[] dry = run("migrate", "--from-file", legacyFiles().toString(), "--to-state-file", state.toString(),
                "--slot", "3", "--namespace", "orders", "--dry-run");
        assertEquals("0", dry[0], dry[2]);
        assertTrue(dry[1].contains("would write ceiling " + (LAST + FIVE_MINUTES)), dry[1]);
        assertFalse(Files.exists(state), "--dry-run writes nothing");

        String[] done = run("migrate", "--from-file", legacyFiles().toString(), "--to-state-file", state.toString(),
                "--slot", "3", "--namespace", "orders");
        assertEquals("0", done[0], done[2]);
        assertEquals(new StateFile.State("orders", 3, LAST + FIVE_MINUTES), StateFile.read(state).orElseThrow());
    }

    @Test
    void aCosIdMachineTableInARealDatabaseRaisesEverySlotOfANamespace() throws Exception {
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE cosid_machine (name VARCHAR(100) NOT NULL PRIMARY KEY, "
                    + "namespace VARCHAR(100) NOT NULL, machine_id INTEGER NOT NULL DEFAULT 0, "
                    + "last_timestamp BIGINT NOT NULL DEFAULT 0, instance_id VARCHAR(100) NOT NULL DEFAULT '', "
                    + "distribute_time BIGINT NOT NULL DEFAULT 0, revert_time BIGINT NOT NULL DEFAULT 0)");
            statement.execute("INSERT INTO cosid_machine (name, namespace, machine_id, last_timestamp) VALUES "
                    + "('orders.0', 'orders', 0, " + (LAST - 1) + "), ('orders.1', 'orders', 1, " + LAST + "), "
                    + "('billing.0', 'billing', 0, " + (LAST + 999_999) + ")");
        }
        String store = "sqlite:" + dir.resolve("cosid.db");
        String[] dry = run("migrate", "--from-jdbc", postgres.jdbcUrl(), "--legacy-namespace", "orders", "--to-store",
                store, "--namespace", "orders", "--bits", "4", "--dry-run");
        assertEquals("0", dry[0], dry[2]);
        assertTrue(dry[1].contains("would raise the next floor of 16 of 16 slots"), dry[1]);
        try (LeaseStore opened = LeaseStores.open(store)) {
            assertTrue(opened.namespace("orders").isEmpty(), "--dry-run writes nothing");
        }

        String[] done = run("migrate", "--from-jdbc", postgres.jdbcUrl(), "--legacy-namespace", "orders",
                "--to-store", store, "--namespace", "orders", "--bits", "4");
        assertEquals("0", done[0], done[2]);
        try (LeaseStore opened = LeaseStores.open(store)) {
            SlotTable table = opened.read("orders");
            assertEquals(16, table.slots().size());
            for (SlotRecord record : table.slots()) {
                assertEquals(LAST + FIVE_MINUTES, record.nextFloor(), "slot " + record.slot());
                assertEquals(null, record.owner());
            }
        }
        String[] again = run("migrate", "--from-jdbc", postgres.jdbcUrl(), "--legacy-namespace", "orders",
                "--to-store", store, "--namespace", "orders", "--bits", "4");
        assertTrue(again[1].contains("raised the next floor of 0 of 16 slots"), "running it twice changes nothing");
    }

    @Test
    void redisItcIdxHashesInARealServerBecomeAStateFileFloor() {
        RedisClient client = RedisClient.create(redis.url());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().hset("cosid:{orders}:itc_idx", "host-a:8080", "0|" + LAST);
            connection.sync().hset("cosid:{orders}:itc_idx", "host-b:8080", "1|" + (LAST / 1000 - 10));
        } finally {
            client.shutdown();
        }
        Path state = dir.resolve("from-redis");
        String[] done = run("migrate", "--from-redis", redis.url(), "--to-state-file", state.toString(), "--slot", "0",
                "--namespace", "orders", "--safe-guard", "1m");
        assertEquals("0", done[0], done[2]);
        assertTrue(done[1].contains("machine 1, last timestamp"), "seconds are read as seconds: " + done[1]);
        assertEquals(LAST + 60_000, StateFile.read(state).orElseThrow().ceiling());
    }

    @Test
    void anOperatorsBoundWinsWhenLaterAndBadInputIsRefused() throws Exception {
        Path state = dir.resolve("bound");
        String[] done = run("migrate", "--from-file", legacyFiles().toString(), "--not-before", "2027-01-01T00:00:00Z",
                "--to-state-file", state.toString(), "--slot", "1");
        assertEquals("0", done[0], done[2]);
        assertEquals(java.time.Instant.parse("2027-01-01T00:00:00Z").toEpochMilli(),
                StateFile.read(state).orElseThrow().ceiling());

        Path garbage = dir.resolve("garbage");
        Files.writeString(garbage, "not a machine state");
        String[] bad = run("migrate", "--from-file", garbage.toString(), "--to-state-file", state + "2", "--slot", "1");
        assertEquals("2", bad[0]);
        assertTrue(bad[2].contains("holds 'not a machine state', not machineId|lastTimeStamp"), bad[2]);
        String[] none = run("migrate", "--to-state-file", state + "3", "--slot", "1");
        assertEquals("2", none[0]);
        assertTrue(none[2].contains("no machine state was read"), none[2]);
        assertFalse(Files.exists(Path.of(state + "2")) || Files.exists(Path.of(state + "3")));
    }
}
