package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import java.util.UUID;

/**
 * A database as the release before layouts left it: its two tables (unchanged since) with records,
 * and no {@code cosid_layout}. This release must keep those records and work on them.
 */
final class PreviousRelease {

    private PreviousRelease() {
    }

    /**
     * Turns the database into one of the previous release, then opens it with this release.
     *
     * @param jdbcUrl the database, for SQL behind the store's back
     * @param storeUrl the store URL, without parameters
     * @param separator how the store URL takes a parameter: {@code ?} or {@code ;}
     * @throws Exception when SQL fails
     */
    static void keepsWorking(String jdbcUrl, String storeUrl, String separator) throws Exception {
        String ns = "previous-" + UUID.randomUUID().toString().substring(0, 8);
        Sql.run(jdbcUrl, "DROP TABLE IF EXISTS cosid_layout");
        Sql.run(jdbcUrl, "INSERT INTO cosid_namespace (namespace, slot_limit, tolerance_ms) VALUES (?, 1024, 1000)", ns);
        Sql.run(jdbcUrl, "INSERT INTO cosid_slot (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor) VALUES (?, 0, NULL, NULL, 'vm:1', 3, 1796000000000, "
                + "1795000000000, 1796000001000, 1796000001000)", ns);

        LeaseStoreException missing = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open(storeUrl + separator + "createSchema=false"));
        assertTrue(missing.getMessage().startsWith("the table cosid_layout is missing in "), missing.getMessage());
        assertTrue(missing.getMessage().contains("CREATE TABLE IF NOT EXISTS cosid_layout ("), missing.getMessage());

        try (LeaseStore store = LeaseStores.open(storeUrl)) {
            assertEquals(new NamespaceRecord(1024, 1_000), store.register(ns, new NamespaceRecord(1024, 1_000)));
            assertEquals(1_796_000_001_000L, store.read(ns).bySlot().get(0).nextFloor());
            LeaseTerms terms = new LeaseTerms(60_000, 1_000);
            SlotLease lease = store.acquire(ns, 0, Owner.of("upgraded"), terms).orElseThrow();
            assertEquals(1_796_000_001_000L, lease.floor(), "the next holder starts past the old window");
            assertEquals(4, lease.fence());
            assertEquals(lease.fence(), store.renew(lease, terms).orElseThrow().fence());
            LayoutRecord millis = new LayoutRecord(1_577_203_200_000L, 1, 41, 10, 12);
            assertEquals(millis, store.registerLayout(ns, "order", millis));
            assertTrue(store.release(lease, lease.floor()));
        }
        try (LeaseStore strict = LeaseStores.open(storeUrl + separator + "createSchema=false")) {
            assertEquals(new NamespaceRecord(1024, 1_000), strict.namespace(ns).orElseThrow(),
                    "once the table exists, a store that may not create tables opens too");
        }
    }
}
