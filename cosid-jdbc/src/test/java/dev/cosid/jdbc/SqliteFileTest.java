package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.RuntimeStatus;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded SQLite file: never recreated while in use, and a file that changed under a store ends it. */
class SqliteFileTest {

    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);

    @TempDir
    Path dir;

    private Path db() {
        return dir.resolve("cosid.db");
    }

    private JdbcLeaseStore open() {
        return JdbcLeaseStore.sqlite(db());
    }

    private static SlotLease acquire(LeaseStore store) {
        store.register("orders", new NamespaceRecord(16, 1_000));
        return store.acquire("orders", 0, Owner.of("a"), TERMS).orElseThrow();
    }

    @Test
    void aDeletedFileEndsEveryOperationAndIsNotCreatedAgain() throws Exception {
        try (JdbcLeaseStore store = open()) {
            SlotLease lease = acquire(store);
            Files.delete(db());
            StoreDataLostException lost = assertThrows(StoreDataLostException.class, () -> store.renew(lease, TERMS));
            assertEquals("sqlite:" + db() + " was deleted while in use; this process will not create it again, since "
                    + "others may still issue ids under windows only the old file knew. Restore the file, or stop every "
                    + "process that uses it and start again", lost.getMessage());
            assertThrows(StoreDataLostException.class, () -> store.read("orders"));
            assertFalse(Files.exists(db()), "no new database was created");
            // a second store in this process is refused while the first one still uses the path
            assertThrows(StoreDataLostException.class, this::open);
            assertFalse(Files.exists(db()));
        }
        try (JdbcLeaseStore fresh = open()) {
            assertTrue(Files.exists(db()), "once nobody uses the path a new database may be created");
            assertEquals(0, acquire(fresh).floor());
        }
    }

    @Test
    void aTruncatedFileEndsEveryOperation() throws Exception {
        try (JdbcLeaseStore store = open()) {
            SlotLease lease = acquire(store);
            try (RandomAccessFile file = new RandomAccessFile(db().toFile(), "rw")) {
                file.setLength(0);
            }
            StoreDataLostException lost = assertThrows(StoreDataLostException.class, () -> store.renew(lease, TERMS));
            assertTrue(lost.getMessage().contains("was truncated to nothing while in use"), lost.getMessage());
            assertEquals(0, Files.size(db()), "the file is left as it is");
        }
    }

    @Test
    void aFileOverwrittenWithGarbageEndsEveryOperation() throws Exception {
        try (JdbcLeaseStore store = open()) {
            SlotLease lease = acquire(store);
            byte[] garbage = new byte[64 * 1024];
            new java.util.Random(7).nextBytes(garbage);
            Files.write(db(), garbage); // the same file, other content
            StoreDataLostException lost = assertThrows(StoreDataLostException.class, () -> store.renew(lease, TERMS));
            assertTrue(lost.getMessage().contains("is gone while in use"), lost.getMessage());
        }
    }

    @Test
    void aFileReplacedByAnotherIsNoticed() throws Exception {
        try (JdbcLeaseStore store = open()) {
            SlotLease lease = acquire(store);
            Path copy = dir.resolve("copy.db");
            Files.copy(db(), copy);
            Files.move(copy, db(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            StoreDataLostException lost = assertThrows(StoreDataLostException.class, () -> store.renew(lease, TERMS));
            assertTrue(lost.getMessage().contains("was replaced by another file while in use"), lost.getMessage());
        }
    }

    @Test
    void aRuntimeWhoseFileWasDeletedStopsForGoodAtItsNextRenewal() throws Exception {
        ManualClock clock = new ManualClock(Clock.system().nowMillis());
        ManualScheduler scheduler = new ManualScheduler(clock);
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store("sqlite:" + db())
                .clock(clock).scheduler(scheduler).maxWait(Duration.ZERO).start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            Files.delete(db());
            scheduler.runNext();
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.CLOSED, refused.reason());
            assertTrue(refused.getMessage().startsWith("generator 'order': the runtime of namespace 'orders' stopped "
                    + "for good: sqlite:" + db() + " was deleted while in use"), refused.getMessage());
            assertEquals(RuntimeStatus.State.FAILED, runtime.status().state());
            assertEquals(Optional.empty(), scheduler.nextDelay(), "no further store calls");
        }
        assertFalse(Files.exists(db()));
    }

    @Test
    void aDatabaseReachedThroughTwoHardLinksIsRefused() throws Exception {
        open().close();
        Path other = dir.resolve("other-name.db");
        Files.createLink(other, db());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, this::open);
        assertTrue(refused.getMessage().startsWith("sqlite:" + db() + " has 2 hard links: SQLite keeps its journal "
                + "and locks beside one name"), refused.getMessage());
        Files.delete(other);
        open().close();
    }

    @Test
    void aDanglingSymbolicLinkIsRefusedAndNothingIsCreated() throws Exception {
        Files.createSymbolicLink(db(), dir.resolve("elsewhere.db"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, this::open);
        assertTrue(refused.getMessage().contains("is a symbolic link to " + dir.resolve("elsewhere.db")
                + ", which does not exist"), refused.getMessage());
        assertFalse(Files.exists(dir.resolve("elsewhere.db")));
    }

    @Test
    void aFileThatIsNotADatabaseIsLeftAsItIsWithNothingBesideIt() throws Exception {
        Files.writeString(db(), "not a database, but somebody's notes\n".repeat(200));
        byte[] before = Files.readAllBytes(db());
        dev.cosid.lease.LeaseStoreException refused = assertThrows(dev.cosid.lease.LeaseStoreException.class,
                this::open);
        assertTrue(refused.getMessage().contains("is not a SQLite database"), refused.getMessage());
        assertEquals(new String(before), new String(Files.readAllBytes(db())));
        try (java.util.stream.Stream<Path> files = Files.list(db().getParent())) {
            assertEquals(List.of(db().getFileName().toString()), files.map(file -> file.getFileName().toString())
                    .toList(), "no lock file, journal or other file is left beside it");
        }
    }

    /** The schema of the release before layouts: the two tables exactly as it created them. */
    private static final String[] PREVIOUS_SCHEMA = {
        "CREATE TABLE IF NOT EXISTS cosid_namespace (\n  namespace    TEXT    NOT NULL PRIMARY KEY,\n"
                + "  slot_limit   INTEGER NOT NULL,\n  tolerance_ms INTEGER NOT NULL\n)",
        "CREATE TABLE IF NOT EXISTS cosid_slot (\n  namespace         TEXT    NOT NULL,\n  slot              INTEGER NOT "
                + "NULL,\n  owner_key         TEXT,\n  owner_incarnation TEXT,\n  last_owner_key    TEXT,\n  fence      "
                + "       INTEGER NOT NULL,\n  expires_at        INTEGER NOT NULL,\n  floor_ms          INTEGER NOT NULL,\n"
                + "  ceiling_ms        INTEGER NOT NULL,\n  next_floor        INTEGER NOT NULL,\n  PRIMARY KEY (namespace, "
                + "slot)\n)",
        "PRAGMA journal_mode=WAL",
        "INSERT INTO cosid_namespace VALUES ('default', 1024, 1000)",
        "INSERT INTO cosid_slot VALUES ('default', 0, NULL, NULL, 'vm:1', 3, 1796000000000, 1795000000000, "
                + "1796000001000, 1796000001000)"
    };

    @Test
    void aDatabaseOfThePreviousReleaseKeepsItsRecordsAndGainsTheLayoutTable() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + db());
             Statement statement = connection.createStatement()) {
            for (String sql : PREVIOUS_SCHEMA) {
                statement.execute(sql);
            }
        }
        try (JdbcLeaseStore store = open()) {
            assertEquals(new NamespaceRecord(1024, 1_000), store.register("default", new NamespaceRecord(1024, 1_000)));
            assertEquals(1_796_000_001_000L, store.read("default").bySlot().get(0).nextFloor());
            SlotLease next = store.acquire("default", 0, Owner.of("new"), TERMS).orElseThrow();
            assertEquals(1_796_000_001_000L, next.floor(), "the next holder starts past the old window");
            assertEquals(4, next.fence());
            LayoutRecord millis = new LayoutRecord(1_577_203_200_000L, 1, 41, 10, 12);
            assertEquals(millis, store.registerLayout("default", "cli", millis));
        }
        try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + db());
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT name, unit_ms FROM cosid_layout")) {
            assertTrue(row.next());
            assertEquals("cli", row.getString(1));
            assertEquals(1, row.getLong(2));
        }
    }
}
