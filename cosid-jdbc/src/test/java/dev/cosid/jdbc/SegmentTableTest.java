package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.StoreDataLostException;
import java.nio.file.Path;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteDataSource;

/** The table of segment counters: in every dialect's schema, and made at the next open of an older database. */
class SegmentTableTest {

    @TempDir
    Path dir;

    private String url() {
        return "jdbc:sqlite:" + dir.resolve("cosid.db");
    }

    private DataSource dataSource() {
        SQLiteDataSource dataSource = new SQLiteDataSource();
        dataSource.setUrl(url());
        return dataSource;
    }

    @Test
    void everyDialectsSchemaHasTheSegmentTable() {
        for (String dialect : List.of("sqlite", "postgresql", "mariadb", "h2")) {
            String script = JdbcDialect.named(dialect).schemaScript();
            assertTrue(script.contains("CREATE TABLE IF NOT EXISTS cosid_segment ("), dialect + ": " + script);
            assertTrue(script.contains("PRIMARY KEY (namespace, name)"), dialect + ": " + script);
        }
    }

    @Test
    void aDatabaseMadeBeforeSegmentCountersGetsTheirTableAtTheNextOpenOrNamesItsDdl() throws Exception {
        try (JdbcLeaseStore store = new JdbcLeaseStore(dataSource(), JdbcDialect.SQLITE, "sqlite:older", true)) {
            store.register("orders", new NamespaceRecord(16, 1_000));
        }
        Sql.run(url(), "DROP TABLE cosid_segment");

        try (JdbcLeaseStore store = new JdbcLeaseStore(dataSource(), JdbcDialect.SQLITE, "sqlite:older", false)) {
            assertTrue(store.acquire("orders", 0, Owner.of("a"), new LeaseTerms(60_000, 1_000)).isPresent(),
                    "leases need no segment table");
            LeaseStoreException missing = assertThrows(LeaseStoreException.class,
                    () -> store.reserveSegment("orders", "invoice", 10));
            assertFalse(missing instanceof StoreDataLostException, "a table never made is no data loss: " + missing);
            assertTrue(missing.getMessage().startsWith("the table cosid_segment is missing in sqlite:older"),
                    missing.getMessage());
            assertTrue(missing.getMessage().contains(JdbcDialect.SQLITE.segmentTable()), missing.getMessage());
        }

        try (JdbcLeaseStore store = new JdbcLeaseStore(dataSource(), JdbcDialect.SQLITE, "sqlite:older", true)) {
            assertEquals(1, store.reserveSegment("orders", "invoice", 10).first());
            assertEquals(11, store.reserveSegment("orders", "invoice", 10).first());
        }
    }
}
