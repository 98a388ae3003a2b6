package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SegmentRange;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migration from Leaf's segment mode: rows of {@code leaf_alloc} allocated by Leaf's own statements,
 * migrated with {@code ./cosid migrate --from-leaf}, then our segments continue above every id Leaf
 * handed out; bad input changes nothing.
 */
class MigrateFromLeafTest {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> MARIADB = new ServerExtension<>(MariaDbServer::started);
    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @TempDir
    Path dir;

    @Test
    void leafRowsOnMariaDbMadeWithLeafsDdlContinueAboveEveryIdLeafHandedOut() throws SQLException {
        migrateFrom(MARIADB.server().jdbcUrl(), LeafTable.MYSQL_DDL);
    }

    @Test
    void leafRowsOnPostgresContinueAboveEveryIdLeafHandedOut() throws SQLException {
        migrateFrom(POSTGRES.server().jdbcUrl(), LeafTable.POSTGRESQL_DDL);
    }

    private void migrateFrom(String url, String ddl) throws SQLException {
        LeafTable.create(url, ddl, "orders", 1000, "invoices", 200);
        long[] leafOrders = LeafTable.allocate(url, "orders", 4);
        long[] leafInvoices = LeafTable.allocate(url, "invoices", 3);
        assertEquals(4000, leafOrders[leafOrders.length - 1], "Leaf handed out 1..4000 of orders");

        Cli dry = Migration.migrate("--from-leaf", url, "--to-store", url, "--namespace", "leaf", "--dry-run");
        assertTrue(dry.out().contains("would raise segment 'orders' of namespace 'leaf' to 4000: ids continue at 4001")
                || dry.out().contains("would raise segment 'orders' of namespace 'leaf' in "), dry.out());
        try (LeaseStore store = LeaseStores.open(url)) {
            assertTrue(store.namespace("leaf").isEmpty() || store.segments("leaf").isEmpty(), "a dry run writes nothing");
        }

        Cli done = Migration.migrate("--from-leaf", url, "--to-store", url, "--namespace", "leaf");
        assertTrue(done.out().contains("read leaf_alloc row 'orders' (max_id 4001): segment 'orders' issued at most 4000"),
                done.out());
        assertTrue(done.out().contains("raised segment 'orders' of namespace 'leaf'"), done.out());
        assertTrue(done.out().contains("from 0 to 4000: ids continue at 4001"), done.out());

        Cli again = Migration.migrate("--from-leaf", url, "--to-store", url, "--namespace", "leaf");
        assertTrue(again.out().contains("kept segment 'invoices' of namespace 'leaf'"), again.out());

        try (LeaseStore store = LeaseStores.open(url)) {
            assertNoneRepeatedAllAbove(leafOrders, ours(store, "orders"));
            assertNoneRepeatedAllAbove(leafInvoices, ours(store, "invoices"));
        }
    }

    private static long[] ours(LeaseStore store, String name) {
        LongStream.Builder ids = LongStream.builder();
        for (int i = 0; i < 20; i++) {
            SegmentRange range = store.reserveSegment("leaf", name, 250);
            LongStream.rangeClosed(range.first(), range.last()).forEach(ids);
        }
        return ids.build().toArray();
    }

    private static void assertNoneRepeatedAllAbove(long[] leafs, long[] ours) {
        long[] sorted = leafs.clone();
        Arrays.sort(sorted);
        long largest = sorted[sorted.length - 1];
        assertEquals(0, LongStream.of(ours).filter(id -> Arrays.binarySearch(sorted, id) >= 0).count(),
                "ids Leaf had handed out");
        assertEquals(largest + 1, LongStream.of(ours).min().orElseThrow(), "ours continue at Leaf's max_id");
    }

    @Test
    void everyBizTagOutsideTheRuleForNamesIsNamedAndNothingIsWritten() throws SQLException {
        String url = POSTGRES.server().jdbcUrl();
        LeafTable.create(url, LeafTable.POSTGRESQL_DDL, "orders", 1000, "a b", 1000, "../x", 1000, "order:item", 10,
                "leaf-segment-test", 1000);
        LeafTable.allocate(url, "orders", 2);
        Path sqlite = dir.resolve("cosid.db");
        String rule = dev.cosid.lease.Names.RULE;
        for (String[] target : new String[][] {{"--to-store", "sqlite:" + sqlite}, {"--to-store", url},
                {"--to-store", url, "--dry-run"}}) {
            String[] args = new String[] {"migrate", "--from-leaf", url, "--namespace", "names"};
            Cli refused = Cli.run(java.util.stream.Stream.concat(Arrays.stream(args), Arrays.stream(target))
                    .toArray(String[]::new));
            assertEquals(2, refused.status(), refused.err());
            assertEquals("", refused.out(), "nothing is reported as read or done");
            assertEquals("cosid migrate: 3 of the 5 counters read have names that cannot name a segment, so nothing "
                    + "was written: name '../x' contains the character '/', name 'a b' contains the character U+0020, "
                    + "name 'order:item' contains the character ':'; " + rule + "; rename them at the source (a Leaf "
                    + "biz_tag together with the key its clients ask for) and run migrate again\n", refused.err());
        }
        assertFalse(Files.exists(sqlite), "the SQLite target was not created");
        assertEquals(0, rowsOfNamespace(url, "cosid_namespace", "names"), "namespace 'names' was not registered");
        assertEquals(0, rowsOfNamespace(url, "cosid_segment", "names"), "no counter was raised");
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url);
             java.sql.ResultSet rows = connection.createStatement().executeQuery(
                     "SELECT max_id FROM leaf_alloc WHERE biz_tag = 'orders'")) {
            rows.next();
            assertEquals(2001, rows.getLong(1), "Leaf's own rows are untouched");
        }
    }

    /** The rows of a namespace in one of our tables; 0 when the table does not exist (other tests may make it). */
    private static int rowsOfNamespace(String url, String table, String namespace) throws SQLException {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url)) {
            try (java.sql.ResultSet found = connection.getMetaData().getTables(null, null, table, null)) {
                if (!found.next()) {
                    return 0;
                }
            }
            try (java.sql.PreparedStatement count = connection.prepareStatement(
                    "SELECT COUNT(*) FROM " + table + " WHERE namespace = ?")) {
                count.setString(1, namespace);
                try (java.sql.ResultSet rows = count.executeQuery()) {
                    rows.next();
                    return rows.getInt(1);
                }
            }
        }
    }

    @Test
    void badSourcesAreRefusedWithOneLineAndTheTargetIsNotCreated() throws SQLException {
        Path target = dir.resolve("cosid.db");
        String url = MARIADB.server().jdbcUrl();
        LeafTable.create(url, LeafTable.MYSQL_DDL, "orders", 1000);

        Cli missingTable = Cli.run("migrate", "--from-leaf", url, "--leaf-table", "no_leaf_alloc",
                "--to-store", "sqlite:" + target);
        assertEquals(1, missingTable.status(), missingTable.err());
        assertTrue(missingTable.err().contains("the table no_leaf_alloc does not exist"), missingTable.err());

        LeafTable.create(url, LeafTable.MYSQL_DDL, "orders", 1000);
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url)) {
            connection.createStatement().execute("DELETE FROM leaf_alloc");
        }
        Cli empty = Cli.run("migrate", "--from-leaf", url, "--to-store", "sqlite:" + target);
        assertEquals(1, empty.status(), empty.err());
        assertTrue(empty.err().contains("the Leaf table leaf_alloc of " + url + " has no rows: nothing to migrate"),
                empty.err());

        Cli unreachable = Cli.run("migrate", "--from-leaf", "jdbc:mariadb://127.0.0.1:1/leaf?user=root&password=hunter22",
                "--to-store", "sqlite:" + target);
        assertEquals(1, unreachable.status(), unreachable.err());
        assertTrue(unreachable.err().contains(
                "cannot read the rows in leaf_alloc of jdbc:mariadb://127.0.0.1:1/leaf?user=root&password=***: "),
                unreachable.err());
        assertFalse(unreachable.err().contains("hunter22"), unreachable.err());

        Cli notJdbc = Cli.run("migrate", "--from-leaf", "mysql://127.0.0.1/leaf", "--to-store", "sqlite:" + target);
        assertEquals(2, notJdbc.status(), notJdbc.err());
        assertTrue(notJdbc.err().contains("is not a JDBC URL"), notJdbc.err());

        Cli mixed = Cli.run("migrate", "--from-leaf", url, "--from-file", dir.toString(), "--to-store", "sqlite:" + target);
        assertEquals(2, mixed.status(), mixed.err());
        assertTrue(mixed.err().contains("migrate in separate runs"), mixed.err());

        for (Cli each : new Cli[] {missingTable, empty, unreachable, notJdbc, mixed}) {
            assertEquals("", each.out(), "nothing is reported as done");
            assertEquals(1, each.err().strip().lines().count(), each.err());
        }
        assertFalse(Files.exists(target), "the target store was not created");
    }
}
