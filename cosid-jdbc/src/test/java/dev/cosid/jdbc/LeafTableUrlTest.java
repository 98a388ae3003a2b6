package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SegmentRange;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code leafTable} option of a store URL: taken out of the URL the driver sees, checked, refused where it cannot work. */
class LeafTableUrlTest {

    @TempDir
    Path dir;

    @Test
    void anH2UrlWithTheOptionReservesFromLeafsTableInThatDatabase() throws Exception {
        String database = "jdbc:h2:mem:leaf-url;DB_CLOSE_DELAY=-1";
        LeafPeer.run(database, LeafPeer.POSTGRESQL_DDL,
                "INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('orders', 2001, 1000)");
        try (LeaseStore store = LeaseStores.open(database + ";leafTable=leaf_alloc")) {
            assertEquals(new SegmentRange("shop", "orders", 2001, 2010), store.reserveSegment("shop", "orders", 10));
        }
        try (LeafPeer leaf = new LeafPeer(database)) {
            assertEquals(3010, leaf.step("orders")[1], "Leaf's next step starts after ours");
        }
    }

    @Test
    void aTableNameThatIsNotPlainSqlIsRefusedBeforeAnyConnection() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> LeaseStores.open("jdbc:postgresql://127.0.0.1:1/leaf?leafTable=leaf_alloc%3BDROP&user=u"));
        assertTrue(error.getMessage().contains("is not a plain SQL name"), error.getMessage());
    }

    @Test
    void anEmbeddedSqliteStoreRefusesTheOptionAndCreatesNoFile() {
        Path file = dir.resolve("cosid.db");
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> LeaseStores.open("sqlite:" + file + "?leafTable=leaf_alloc"));
        assertTrue(error.getMessage().contains("leafTable works on PostgreSQL, MariaDB/MySQL and H2"), error.getMessage());
        assertFalse(Files.exists(file));
    }
}
