package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A PostgreSQL URL that names several hosts is safe by default: the store writes only where the primary
 * commits synchronously to a standby or streams to none, refuses in one line otherwise, and bounds every
 * statement. With the
 * synchronous standby frozen (SIGSTOP, as a partition would cut it off), a write fails within a sixth of the
 * ttl, counts as failed although the primary committed it locally, and leaves no backend waiting.
 */
class PostgresSynchronousStandbyTest {

    private static final LeaseTerms TERMS = new LeaseTerms(3_000, 500);

    @RegisterExtension
    static final ServerExtension<PostgresServer> SINGLE = new ServerExtension<>(PostgresServer::started);

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(true));

    private final Clock clock = Clock.system();

    /** Both hosts name the one server, which streams to no standby: the URL is one of several hosts. */
    private static String twoHostUrl() {
        String address = "127.0.0.1:" + SINGLE.server().port();
        return "jdbc:postgresql://" + address + "," + address + "/postgres?user=postgres";
    }

    private static String namespace() {
        return "sync-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void aMultiHostUrlWhosePrimaryStreamsToAnAsynchronousStandbyIsRefusedInOneLineNamingTheUnsafeOption() {
        PostgresServer primary = PAIR.server().primary();
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = ''");
        primary.sql("SELECT pg_reload_conf()");
        try {
            LeaseStoreException refused = assertThrows(LeaseStoreException.class,
                    () -> LeaseStores.open(PAIR.server().jdbcUrl()).close());
            assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
            assertTrue(refused.getMessage().contains("does not commit synchronously to a standby "
                    + "(synchronous_standby_names='', synchronous_commit=on, 1 standbys streaming)"),
                    refused.getMessage());
            assertTrue(refused.getMessage().endsWith("or add allowRepeatedIdsOnPartition=true to the URL to accept "
                    + "that"), refused.getMessage());
            try (LeaseStore store = LeaseStores.open(PAIR.server().jdbcUrl() + "&allowRepeatedIdsOnPartition=true")) {
                String ns = namespace();
                store.register(ns, new NamespaceRecord(16, 500));
                assertTrue(store.acquire(ns, 0, Owner.of("a"), TERMS).isPresent(), "the unsafe option keeps the old way");
            }
        } finally {
            primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
            primary.sql("SELECT pg_reload_conf()");
            awaitSynchronous();
        }
    }

    /** A server that streams to no standby is the only copy (a promoted standby): it takes writes. */
    @Test
    void aPrimaryThatStreamsToNoStandbyIsTheOnlyCopyAndTakesWrites() {
        try (LeaseStore store = LeaseStores.open(twoHostUrl())) {
            String ns = namespace();
            store.register(ns, new NamespaceRecord(16, 500));
            assertTrue(store.acquire(ns, 0, Owner.of("a"), TERMS).isPresent());
        }
    }

    private void awaitSynchronous() {
        long deadline = clock.monotonicNanos() + TimeUnit.SECONDS.toNanos(30);
        while (!PAIR.server().primary().sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")
                .equals("1")) {
            assertTrue(clock.monotonicNanos() < deadline, "the standby did not become synchronous again");
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Test
    void aSessionThatCommitsLocallyIsRefusedEvenWithASynchronousStandby() {
        String local = PAIR.server().jdbcUrl() + "&options=-c%20synchronous_commit%3Dlocal";
        LeaseStoreException refused = assertThrows(LeaseStoreException.class, () -> LeaseStores.open(local));
        assertTrue(refused.getMessage().contains("synchronous_standby_names='*', synchronous_commit=local"),
                refused.getMessage());
    }

    @Test
    void aPrimaryThatTurnsAsynchronousWithAStandbyStreamingIsRefusedAtTheNextWrite() {
        String ns = namespace();
        PostgresServer primary = PAIR.server().primary();
        try (LeaseStore store = LeaseStores.open(PAIR.server().jdbcUrl())) {
            store.register(ns, new NamespaceRecord(16, 500));
            SlotLease lease = store.acquire(ns, 0, Owner.of("a"), TERMS).orElseThrow();
            primary.sql("ALTER SYSTEM SET synchronous_standby_names = ''");
            primary.sql("SELECT pg_reload_conf()");
            try {
                LeaseStoreException refused = assertThrows(LeaseStoreException.class, () -> {
                    // the reload reaches the session's backend before its next statement, at most a moment later
                    long deadline = clock.monotonicNanos() + TimeUnit.SECONDS.toNanos(10);
                    while (clock.monotonicNanos() < deadline) {
                        store.renew(lease, TERMS);
                    }
                });
                assertTrue(refused.getMessage().contains("(synchronous_standby_names='', synchronous_commit=on, "
                        + "1 standbys streaming)"), refused.getMessage());
            } finally {
                primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
                primary.sql("SELECT pg_reload_conf()");
            }
            awaitSynchronous();
            assertTrue(store.renew(lease, TERMS).isPresent(), "synchronous again, the write counts");
        }
    }

    @Test
    void aWriteTheFrozenStandbyCannotConfirmFailsWithinItsBoundAndLeavesNoBackendWaiting() {
        String ns = namespace();
        try (LeaseStore store = LeaseStores.open(PAIR.server().jdbcUrl())) {
            store.register(ns, new NamespaceRecord(16, 500));
            SlotLease lease = store.acquire(ns, 0, Owner.of("a"), TERMS).orElseThrow();

            PostgresServer standby = PAIR.server().standby();
            standby.pause();
            try {
                for (int attempt = 0; attempt < 2; attempt++) {
                    long start = clock.monotonicNanos();
                    LeaseStoreException failed = assertThrows(LeaseStoreException.class,
                            () -> store.renew(lease, TERMS));
                    long tookMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
                    // a sixth of the ttl is 500 ms, but a store that writes through a synchronous standby waits
                    // at least 1 s (JdbcLeaseStore.SYNCHRONOUS_MIN_BOUND_MILLIS)
                    assertTrue(tookMillis >= 1_000 && tookMillis < 2_500, "the write took " + tookMillis
                            + " ms, not its bound of 1000 ms: " + failed.getMessage());
                    assertTrue(failed.getMessage().contains("no synchronous standby confirmed it within 1000 ms"),
                            failed.getMessage());
                    assertEquals("0", PAIR.server().primary().sql("SELECT count(*) FROM pg_stat_activity "
                            + "WHERE wait_event = 'SyncRep' OR wait_event_type = 'Lock'"),
                            "a backend still waits for the standby or for the slot's row lock");
                }
                // a segment reservation is a write like a renewal: bounded the same, and not counted either
                long start = clock.monotonicNanos();
                LeaseStoreException reservation = assertThrows(LeaseStoreException.class,
                        () -> store.reserveSegment(ns, "orders", 100));
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
                assertTrue(tookMillis < 2_500 && reservation.getMessage().contains("no synchronous standby confirmed"),
                        tookMillis + " ms: " + reservation.getMessage());
                assertEquals("0", PAIR.server().primary().sql("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE wait_event = 'SyncRep' OR wait_event_type = 'Lock'"), "a reservation still waits");
            } finally {
                standby.resume();
            }
            SlotLease renewed = store.renew(lease, TERMS).orElseThrow();
            assertEquals(lease.fence(), renewed.fence(), "the lease stayed this holder's");
            assertTrue(store.reserveSegment(ns, "orders", 100).first() > 100,
                    "the unconfirmed reservation is a gap, never handed out again");
        }
    }
}
