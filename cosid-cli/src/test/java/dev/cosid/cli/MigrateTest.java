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
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ./cosid migrate as a command: what it writes, what a dry run leaves alone, and the input it refuses
 * before writing anything. The runs against CosId's own code are in the {@code MigrateFromCosId*Test}
 * classes.
 */
class MigrateTest {

    private static final long LAST = Instant.parse("2026-01-01T00:01:00Z").toEpochMilli();
    private static final long FIVE_MINUTES = Duration.ofMinutes(5).toMillis();

    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @TempDir
    Path dir;

    /** A directory as CosId's LocalMachineStateStorage leaves it: Base64 names, machineId|lastTimeStamp. */
    private Path legacyFiles(String... states) throws Exception {
        Path directory = Files.createDirectories(dir.resolve(".cosid-machine-state"));
        for (int i = 0; i < states.length; i++) {
            String name = Base64.getEncoder().encodeToString(("orders__10.0.0." + i + ":8080")
                    .getBytes(StandardCharsets.UTF_8));
            Files.writeString(directory.resolve(name), states[i]);
        }
        return directory;
    }

    private static void assertOneLineError(Cli result, String fragment) {
        assertEquals(2, result.status(), result.err());
        assertEquals("", result.out(), "bad input prints nothing on stdout");
        assertTrue(result.err().startsWith("cosid migrate: ") && result.err().endsWith("\n")
                && result.err().indexOf('\n') == result.err().length() - 1, "one line: " + result.err());
        assertTrue(result.err().contains(fragment), result.err());
    }

    @Test
    void localMachineStateFilesBecomeAStateFileFloorAndADryRunWritesNothing() throws Exception {
        Path states = legacyFiles("3|" + (LAST - 60_000), "7|" + LAST + "\n");
        Path state = dir.resolve("state");
        Cli dry = Cli.run("migrate", "--from-file", states.toString(), "--to-state-file", state.toString(),
                "--slot", "3", "--namespace", "orders", "--dry-run");
        assertEquals(0, dry.status(), dry.err());
        assertTrue(dry.out().contains("would write ceiling " + (LAST + FIVE_MINUTES)), dry.out());
        assertTrue(dry.out().contains("(namespace 'orders', instance '10.0.0.1:8080'): machine 7"), dry.out());
        assertFalse(Files.exists(state), "--dry-run writes nothing");

        Cli done = Cli.run("migrate", "--from-file", states.toString(), "--to-state-file", state.toString(),
                "--slot", "3", "--namespace", "orders");
        assertEquals(0, done.status(), done.err());
        assertEquals(new StateFile.State("orders", 3, LAST + FIVE_MINUTES), StateFile.read(state).orElseThrow());
    }

    @Test
    void cosId31FileNamesAreReadByNamespaceToo() throws Exception {
        // CosId 3.1.0 and later name a state file v2.<namespace>.<instanceId>.<stable>, parts in URL-safe Base64
        Path directory = Files.createDirectories(dir.resolve("v2-states"));
        Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
        String name = "v2." + url.encodeToString("orders".getBytes(StandardCharsets.UTF_8)) + "."
                + url.encodeToString("10.0.0.9:8080".getBytes(StandardCharsets.UTF_8)) + ".false";
        Files.writeString(directory.resolve(name), "9|" + LAST);
        Files.writeString(directory.resolve("v2." + url.encodeToString("billing".getBytes(StandardCharsets.UTF_8))
                + "." + url.encodeToString("10.0.0.9:8080".getBytes(StandardCharsets.UTF_8)) + ".false"), "9|" + (LAST * 2));
        Path state = dir.resolve("v2.state");
        Cli done = Cli.run("migrate", "--from-file", directory.toString(), "--legacy-namespace", "orders",
                "--to-state-file", state.toString(), "--slot", "9", "--namespace", "orders");
        assertEquals(0, done.status(), done.err());
        assertTrue(done.out().contains("(namespace 'orders', instance '10.0.0.9:8080'): machine 9"), done.out());
        assertEquals(LAST + FIVE_MINUTES, StateFile.read(state).orElseThrow().ceiling());
    }

    @Test
    void aDryRunIntoANewSqliteFileCreatesNeitherTheFileNorATable() throws Exception {
        Path states = legacyFiles("3|" + LAST);
        Path database = dir.resolve("new").resolve("cosid.db");
        Cli dry = Cli.run("migrate", "--from-file", states.toString(), "--to-store", "sqlite:" + database,
                "--namespace", "orders", "--bits", "4", "--dry-run");
        assertEquals(0, dry.status(), dry.err());
        assertTrue(dry.out().contains("would create the CosId tables in sqlite:" + database + ", register namespace "
                + "'orders' and raise the next floor of 16 of 16 slots to " + (LAST + FIVE_MINUTES)), dry.out());
        assertFalse(Files.exists(database.getParent()), "neither the file nor its directory");

        // an existing store is read, read-only: the namespace stays unregistered
        try (LeaseStore store = LeaseStores.open("sqlite:" + database)) {
            store.namespace("orders");
        }
        Cli again = Cli.run("migrate", "--from-file", states.toString(), "--to-store", "sqlite:" + database,
                "--namespace", "orders", "--bits", "4", "--dry-run");
        assertTrue(again.out().contains("would raise the next floor of 16 of 16 slots"), again.out());
        try (LeaseStore store = LeaseStores.open("sqlite:" + database)) {
            assertTrue(store.namespace("orders").isEmpty(), "--dry-run registers nothing");
        }
    }

    @Test
    void aDryRunIntoADatabaseCreatesNoTableAndARealRunRaisesEverySlot() throws Exception {
        String url = POSTGRES.server().jdbcUrl();
        Path states = legacyFiles("3|" + LAST);
        Cli dry = Cli.run("migrate", "--from-file", states.toString(), "--to-store", url, "--namespace", "orders",
                "--bits", "4", "--dry-run");
        assertEquals(0, dry.status(), dry.err());
        assertTrue(dry.out().contains("would create the CosId tables"), dry.out());
        assertEquals(0, cosIdTables(url), "--dry-run creates no table");

        Cli done = Cli.run("migrate", "--from-file", states.toString(), "--to-store", url, "--namespace", "orders",
                "--bits", "4");
        assertEquals(0, done.status(), done.err());
        try (LeaseStore store = LeaseStores.open(url)) {
            SlotTable table = store.read("orders");
            assertEquals(16, table.slots().size());
            for (SlotRecord record : table.slots()) {
                assertEquals(LAST + FIVE_MINUTES, record.nextFloor(), "slot " + record.slot());
                assertEquals(null, record.owner());
            }
        }
        Cli dryAgain = Cli.run("migrate", "--from-file", states.toString(), "--to-store", url, "--namespace", "orders",
                "--bits", "4", "--dry-run");
        assertTrue(dryAgain.out().contains("would raise the next floor of 0 of 16 slots"), dryAgain.out());
        Cli again = Cli.run("migrate", "--from-file", states.toString(), "--to-store", url, "--namespace", "orders",
                "--bits", "4");
        assertTrue(again.out().contains("raised the next floor of 0 of 16 slots"), "running it twice changes nothing");
    }

    private static int cosIdTables(String url) throws Exception {
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement();
             ResultSet count = statement.executeQuery("select count(*) from information_schema.tables "
                     + "where table_name in ('cosid_slot', 'cosid_namespace')")) {
            count.next();
            return count.getInt(1);
        }
    }

    @Test
    void aTimestampThatWouldWrapAroundIsRefusedAndNothingIsWritten() throws Exception {
        Path states = legacyFiles("3|1767225600000", "7|9223372036854775807");
        Path state = dir.resolve("wrapped.state");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--to-state-file", state.toString(),
                "--slot", "3"), "machine 7, last timestamp +292278994-08-17T07:12:55.807Z (9223372036854775807 ms) "
                + "lies outside 1970-01-01T00:00:00Z to 2089-08-30T07:47:35.551Z, the last instant of layout MILLISECOND");
        assertFalse(Files.exists(state));
        Path database = dir.resolve("wrapped.db");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--to-store", "sqlite:" + database),
                "9223372036854775807");
        assertFalse(Files.exists(database));
    }

    @Test
    void aTimestampFarInTheFutureIsRefusedUnlessAllowed() throws Exception {
        long year3170843 = 100_000_000_000_000L;
        Path state = dir.resolve("future.state");
        assertOneLineError(Cli.run("migrate", "--from-file", legacyFiles("3|" + year3170843).toString(),
                "--to-state-file", state.toString(), "--slot", "3"), "the last instant of layout MILLISECOND");

        long inTwoDays = Clock.system().nowMillis() + Duration.ofDays(2).toMillis();
        Path states = legacyFiles("3|" + inTwoDays);
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--to-state-file", state.toString(),
                "--slot", "3"), "lies more than 24 h ahead of this host's clock");
        assertFalse(Files.exists(state));
        Cli allowed = Cli.run("migrate", "--from-file", states.toString(), "--to-state-file", state.toString(),
                "--slot", "3", "--allow-future");
        assertEquals(0, allowed.status(), allowed.err());
        assertEquals(inTwoDays + FIVE_MINUTES, StateFile.read(state).orElseThrow().ceiling());
    }

    @Test
    void aNotBeforeOrSafeGuardOutsideTheLimitsIsRefused() throws Exception {
        Path states = legacyFiles("3|" + LAST);
        Path state = dir.resolve("limits.state");
        assertOneLineError(Cli.run("migrate", "--not-before", "2100-01-01T00:00:00Z", "--to-state-file",
                state.toString(), "--slot", "1"), "--not-before 2100-01-01T00:00:00Z");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--layout",
                "SAFE_JS_MILLISECOND_LEGACY_EPOCH", "--bits", "3", "--not-before", "2040-01-01T00:00:00Z",
                "--to-state-file", state.toString(), "--slot", "1"),
                "to 2039-09-25T21:54:18.751Z, the last instant of layout SAFE_JS_MILLISECOND_LEGACY_EPOCH");
        assertOneLineError(Cli.run("migrate", "--not-before", "1969-12-31T23:59:59Z", "--to-state-file",
                state.toString(), "--slot", "1"), "lies outside 1970-01-01T00:00:00Z");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--safe-guard", "100000000h",
                "--to-state-file", state.toString(), "--slot", "1"), "--safe-guard PT100000000H is outside 0 to PT24H");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--layout", "SAFE_JS_MILLISECOND",
                "--to-store", "sqlite:" + dir.resolve("js.db")), "bits 10 exceed the layout's slot bits 3");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--layout", "SAFE_JS_MILLISECOND",
                "--bits", "3", "--to-state-file", state.toString(), "--slot", "8"), "--slot 8 does not fit the 3 slot bits");
        assertFalse(Files.exists(state));
        assertFalse(Files.exists(dir.resolve("js.db")));
    }

    @Test
    void anOperatorsBoundWinsWhenLaterAndBadInputIsRefused() throws Exception {
        Path states = legacyFiles("3|" + LAST);
        Path state = dir.resolve("bound");
        Instant later = Instant.ofEpochMilli(LAST).plus(Duration.ofHours(1));
        Cli done = Cli.run("migrate", "--from-file", states.toString(), "--not-before", later.toString(),
                "--to-state-file", state.toString(), "--slot", "1");
        assertEquals(0, done.status(), done.err());
        assertEquals(later.toEpochMilli(), StateFile.read(state).orElseThrow().ceiling());

        Path garbage = dir.resolve("garbage");
        Files.writeString(garbage, "not a machine state");
        assertOneLineError(Cli.run("migrate", "--from-file", garbage.toString(), "--to-state-file", state + "2",
                "--slot", "1"), "holds 'not a machine state', not machineId|lastTimeStamp");
        Files.writeString(garbage, "3|-5");
        assertOneLineError(Cli.run("migrate", "--from-file", garbage.toString(), "--to-state-file", state + "2",
                "--slot", "1"), "holds the last timestamp -5, below 0");
        assertOneLineError(Cli.run("migrate", "--to-state-file", state + "3", "--slot", "1"), "no machine state was read");
        assertOneLineError(Cli.run("migrate", "--from-file", states.toString(), "--legacy-namespace", "billing",
                "--to-state-file", state + "3", "--slot", "1"), "holds no machine state file of namespace 'billing'");
        assertOneLineError(Cli.run("migrate", "--from-zookeeper", "zookeeper://", "--to-state-file", state + "3",
                "--slot", "1"), "is not a ZooKeeper URL");
        assertFalse(Files.exists(Path.of(state + "2")) || Files.exists(Path.of(state + "3")));
    }
}
