package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link LeaseStore} passes: each row of the store-operations table, the
 * monotonicity rules, idempotent renewal, fence checks, concurrency and error behaviour.
 *
 * <p>A store's test extends this class and supplies {@link #createStore()}; a store whose clock
 * the test controls also overrides {@link #passStoreTime(long)}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * class SqliteLeaseStoreTest extends LeaseStoreContract {
 *     protected LeaseStore createStore() { return JdbcLeaseStore.sqlite(dir.resolve("cosid.db")); }
 *     protected void deleteNamespaceRecord(String ns) { sql("DELETE FROM cosid_namespace WHERE namespace = ?", ns); }
 *     protected void deleteSlotRecord(String ns, int slot) { ... }
 * }
 * }</pre>
 */
public abstract class LeaseStoreContract {

    private static final AtomicInteger NAMESPACES = new AtomicInteger();
    /** Long enough that no lease expires during a test unless the test waits for it. */
    protected static final LeaseTerms LONG = new LeaseTerms(60_000, 1_000);
    /** Short enough that a test can wait for the expiry on a real store clock. */
    protected static final LeaseTerms SHORT = new LeaseTerms(150, 1_000);

    /** The store under test. */
    protected LeaseStore store;
    /** A namespace of 16 slots, fresh for every test. */
    protected String ns;

    /**
     * Creates the store under test; called before every test.
     *
     * @return a store
     * @throws Exception when the store cannot start
     */
    protected abstract LeaseStore createStore() throws Exception;

    /**
     * Deletes a namespace's record from the store behind its back, as a store that lost its data would;
     * the namespace's slot records may go with it.
     *
     * @param namespace the namespace
     * @throws Exception when the store cannot be changed
     */
    protected abstract void deleteNamespaceRecord(String namespace) throws Exception;

    /**
     * Deletes one slot record from the store behind its back, as a store that lost it would.
     *
     * @param namespace the namespace
     * @param slot the slot
     * @throws Exception when the store cannot be changed
     */
    protected abstract void deleteSlotRecord(String namespace, int slot) throws Exception;

    /**
     * Whether the store under test still knows, after {@link #deleteNamespaceRecord(String)}, that it had
     * registered the namespace, so that it tells a record that vanished from one never written. The
     * default is true; a store whose deletion hook replaces the whole store (the in-memory one) says no.
     *
     * @return true when a vanished namespace record must raise {@link StoreDataLostException}
     */
    protected boolean remembersRegisteredNamespaces() {
        return true;
    }

    /**
     * Returns once the store's clock has passed an instant. The default polls the store; a store
     * with a manual clock advances it instead.
     *
     * @param storeInstant an instant of the store's clock, ms
     */
    protected void passStoreTime(long storeInstant) {
        Clock clock = Clock.system();
        long deadline = clock.monotonicNanos() + TimeUnit.SECONDS.toNanos(10);
        while (store.read(ns).storeNow() <= storeInstant) {
            if (clock.monotonicNanos() > deadline) {
                throw new AssertionError("the store clock did not pass " + storeInstant + " within 10 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @BeforeEach
    void openStore() throws Exception {
        store = createStore();
        ns = "contract-" + NAMESPACES.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 8);
        store.register(ns, new NamespaceRecord(16, 1_000));
    }

    @AfterEach
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    private static Owner owner(String key) {
        return Owner.of(key);
    }

    private SlotRecord record(int slot) {
        return store.read(ns).bySlot().get(slot);
    }

    @Test
    void registerKeepsTheFirstRecord() {
        assertEquals(new NamespaceRecord(16, 1_000), store.register(ns, new NamespaceRecord(1024, 2_000)));
        assertEquals(Optional.of(new NamespaceRecord(16, 1_000)), store.namespace(ns));
        assertEquals(Optional.empty(), store.namespace(ns + "-never"));
    }

    @Test
    void aFreshNamespaceHasNoSlotRecords() {
        SlotTable table = store.read(ns);
        assertTrue(table.slots().isEmpty());
        assertTrue(table.storeNow() > 0, "storeNow " + table.storeNow());
    }

    @Test
    void acquireOfANeverUsedSlotStartsAtFloorZeroWithFenceOne() {
        Owner a = owner("a");
        SlotLease lease = store.acquire(ns, 3, a, LONG).orElseThrow();
        assertEquals(3, lease.slot());
        assertEquals(a, lease.owner());
        assertEquals(1, lease.fence());
        assertFalse(lease.takenOver(), "a never-used slot is not taken over");
        assertEquals(0, lease.floor());
        assertEquals(lease.storeNow() + LONG.ttlMillis(), lease.expiresAt());
        assertEquals(lease.expiresAt() + LONG.toleranceMillis(), lease.ceiling());
        SlotRecord stored = record(3);
        assertEquals(a, stored.owner());
        assertEquals("a", stored.lastOwnerKey());
        assertEquals(lease.ceiling(), stored.nextFloor());
    }

    @Test
    void acquireOfALiveSlotIsRefusedEvenForTheSameKey() {
        Owner a = owner("a");
        SlotLease lease = store.acquire(ns, 0, a, LONG).orElseThrow();
        assertEquals(Optional.empty(), store.acquire(ns, 0, owner("b"), LONG));
        assertEquals(Optional.empty(), store.acquire(ns, 0, new Owner("a", UUID.randomUUID()), LONG));
        assertEquals(lease.fence(), record(0).fence());
        assertEquals(a, record(0).owner());
    }

    @Test
    void acquireOfAnExpiredSlotStartsAtThePreviousCeiling() {
        SlotLease first = store.acquire(ns, 1, owner("a"), SHORT).orElseThrow();
        passStoreTime(first.expiresAt());
        Owner b = owner("b");
        SlotLease second = store.acquire(ns, 1, b, LONG).orElseThrow();
        assertEquals(2, second.fence());
        assertTrue(second.takenOver(), "an expired slot is taken over: " + second);
        assertEquals(first.ceiling(), second.floor());
        assertEquals(Math.max(second.expiresAt() + LONG.toleranceMillis(), second.floor()), second.ceiling());
        assertEquals(second.ceiling(), record(1).nextFloor());
        assertEquals(b, record(1).owner());
    }

    @Test
    void acquireOfAReleasedSlotNeedsNoExpiry() {
        SlotLease first = store.acquire(ns, 2, owner("a"), LONG).orElseThrow();
        assertTrue(store.release(first, first.floor()));
        SlotLease second = store.acquire(ns, 2, owner("b"), LONG).orElseThrow();
        assertEquals(3, second.fence());
    }

    @Test
    void renewKeepsTheFenceAndNeverLowersTheWindow() {
        SlotLease lease = store.acquire(ns, 0, owner("a"), LONG).orElseThrow();
        SlotLease renewed = store.renew(lease, LONG).orElseThrow();
        assertEquals(lease.fence(), renewed.fence());
        assertEquals(lease.floor(), renewed.floor());
        assertTrue(renewed.expiresAt() >= lease.expiresAt());
        assertTrue(renewed.ceiling() >= lease.ceiling());
        assertEquals(renewed.ceiling(), record(0).nextFloor());
        // a shorter ttl must not pull the expiry or the ceiling back
        SlotLease shorter = store.renew(renewed, SHORT).orElseThrow();
        assertEquals(renewed.expiresAt(), shorter.expiresAt());
        assertEquals(renewed.ceiling(), shorter.ceiling());
    }

    @Test
    void aReplayedRenewalSucceeds() {
        SlotLease lease = store.acquire(ns, 0, owner("a"), LONG).orElseThrow();
        SlotLease once = store.renew(lease, LONG).orElseThrow();
        SlotLease again = store.renew(lease, LONG).orElseThrow();
        assertEquals(once.fence(), again.fence());
        assertTrue(again.ceiling() >= once.ceiling());
    }

    @Test
    void renewAfterExpiryWorksWhileNobodyTookTheSlot() {
        SlotLease lease = store.acquire(ns, 0, owner("a"), SHORT).orElseThrow();
        passStoreTime(lease.expiresAt());
        SlotLease renewed = store.renew(lease, LONG).orElseThrow();
        assertEquals(lease.fence(), renewed.fence());
        assertTrue(renewed.expiresAt() > lease.expiresAt());
    }

    @Test
    void renewWithAStaleFenceOrAnotherIncarnationIsRefused() {
        Owner a = owner("a");
        SlotLease first = store.acquire(ns, 0, a, SHORT).orElseThrow();
        passStoreTime(first.expiresAt());
        SlotLease taken = store.acquire(ns, 0, owner("b"), LONG).orElseThrow();
        assertEquals(Optional.empty(), store.renew(first, LONG));
        SlotLease impostor = new SlotLease(ns, 0, new Owner("b", UUID.randomUUID()), taken.fence(), taken.expiresAt(),
                taken.floor(), taken.ceiling(), taken.storeNow());
        assertEquals(Optional.empty(), store.renew(impostor, LONG));
        assertEquals(taken.owner(), record(0).owner());
        assertEquals(taken.ceiling(), record(0).ceiling());
    }

    @Test
    void releaseHandsTheExactLastIssuedMillisecondToTheNextHolder() {
        SlotLease lease = store.acquire(ns, 4, owner("a"), LONG).orElseThrow();
        long lastIssued = lease.storeNow() + 7;
        assertTrue(store.release(lease, lastIssued));
        SlotRecord released = record(4);
        assertNull(released.owner());
        assertEquals("a", released.lastOwnerKey());
        assertEquals(lease.fence() + 1, released.fence());
        assertEquals(lastIssued, released.nextFloor());
        SlotLease next = store.acquire(ns, 4, owner("b"), LONG).orElseThrow();
        assertEquals(lastIssued, next.floor());
        assertEquals(lease.fence() + 2, next.fence());
    }

    @Test
    void releaseCapsTheNextFloorAtTheCeilingAndNeverBelowTheFloor() {
        SlotLease first = store.acquire(ns, 5, owner("a"), LONG).orElseThrow();
        assertTrue(store.release(first, Long.MAX_VALUE - 1));
        assertEquals(first.ceiling(), record(5).nextFloor());
        SlotLease second = store.acquire(ns, 5, owner("b"), LONG).orElseThrow();
        assertEquals(first.ceiling(), second.floor());
        assertTrue(store.release(second, 0));
        assertEquals(second.floor(), record(5).nextFloor());
    }

    @Test
    void releaseWithAStaleFenceIsRefusedAndChangesNothing() {
        SlotLease lease = store.acquire(ns, 6, owner("a"), LONG).orElseThrow();
        SlotLease stale = new SlotLease(ns, 6, lease.owner(), lease.fence() - 1, lease.expiresAt(), lease.floor(),
                lease.ceiling(), lease.storeNow());
        assertFalse(store.release(stale, lease.floor()));
        assertTrue(store.release(lease, lease.floor()));
        assertFalse(store.release(lease, lease.floor()), "a second release finds the lease gone");
        assertEquals(lease.fence() + 1, record(6).fence());
    }

    @Test
    void slotsOutsideTheNamespaceAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> store.acquire(ns, 16, owner("a"), LONG));
        assertThrows(IllegalArgumentException.class, () -> store.acquire(ns, -1, owner("a"), LONG));
        assertTrue(store.read(ns).slots().isEmpty());
    }

    @Test
    void invalidNamespaceNamesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> store.read(""));
        assertThrows(IllegalArgumentException.class, () -> store.read("orders/2"));
        assertThrows(IllegalArgumentException.class, () -> store.register("x".repeat(65), new NamespaceRecord(1, 0)));
    }

    @Test
    void theTakeoverGuardStartsASlotTakenFromAnExpiredHolderPastTtlAndTolerance() {
        LeaseTerms guarded = new LeaseTerms(60_000, 1_000, false, true);
        SlotLease crashed = store.acquire(ns, 5, owner("a"), SHORT).orElseThrow();
        passStoreTime(crashed.expiresAt());
        SlotLease taken = store.acquire(ns, 5, owner("b"), guarded).orElseThrow();
        assertTrue(taken.takenOver(), "the expired slot was taken over: " + taken);
        assertEquals(taken.storeNow() + 61_000, taken.floor(), "the floor lies ttl + tolerance past the store's now");
        assertEquals(taken.floor(), taken.ceiling());
        assertEquals(taken.floor(), record(5).floor());
        assertEquals(taken.ceiling(), record(5).nextFloor());
    }

    @Test
    void theTakeoverGuardLeavesReleasedAndNeverUsedSlotsAtTheirNextFloor() {
        LeaseTerms guarded = new LeaseTerms(60_000, 1_000, false, true);
        SlotLease fresh = store.acquire(ns, 9, owner("a"), guarded).orElseThrow();
        assertFalse(fresh.takenOver(), "a never-used slot is not taken over");
        assertEquals(0, fresh.floor());
        assertTrue(store.release(fresh, fresh.storeNow()));
        SlotLease released = store.acquire(ns, 9, owner("b"), guarded).orElseThrow();
        assertFalse(released.takenOver(), "a released slot is not taken over");
        assertEquals(fresh.storeNow(), released.floor(), "a released slot starts at the holder's last issued");
        SlotLease renewed = store.renew(released, guarded).orElseThrow();
        assertFalse(renewed.takenOver(), "a renewal is no takeover");
    }

    @Test
    void theColdStartGuardAppliesOnlyToRecordsItCreates() {
        LeaseTerms guarded = new LeaseTerms(60_000, 1_000, true);
        SlotLease fresh = store.acquire(ns, 7, owner("a"), guarded).orElseThrow();
        assertEquals(fresh.storeNow() + 61_000, fresh.floor());
        assertEquals(fresh.floor(), fresh.ceiling());
        assertTrue(store.release(fresh, fresh.floor()));
        SlotLease existing = store.acquire(ns, 7, owner("b"), guarded).orElseThrow();
        assertEquals(fresh.floor(), existing.floor(), "an existing record keeps its next floor");
    }

    @Test
    void manyThreadsAcquiringAtOnceNeverShareASlot() throws Exception {
        int threads = 24;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Optional<SlotLease>>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Owner me = owner("racer-" + i);
                results.add(pool.submit(() -> {
                    go.await();
                    for (int slot = 0; slot < 16; slot++) {
                        Optional<SlotLease> lease = store.acquire(ns, slot, me, LONG);
                        if (lease.isPresent()) {
                            return lease;
                        }
                    }
                    return Optional.empty();
                }));
            }
            go.countDown();
            Set<Integer> slots = new HashSet<>();
            int winners = 0;
            for (Future<Optional<SlotLease>> result : results) {
                Optional<SlotLease> lease = result.get(60, TimeUnit.SECONDS);
                if (lease.isPresent()) {
                    winners++;
                    assertTrue(slots.add(lease.get().slot()), "slot " + lease.get().slot() + " handed out twice");
                    assertEquals(1, lease.get().fence());
                }
            }
            assertEquals(16, winners);
            SlotTable table = store.read(ns);
            assertEquals(16, table.slots().size());
            for (SlotRecord record : table.slots()) {
                assertEquals(1, record.fence(), "slot " + record.slot());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static final LayoutRecord MILLIS = new LayoutRecord(1_577_203_200_000L, 1, 41, 10, 12);
    private static final LayoutRecord SECONDS = new LayoutRecord(1_577_203_200_000L, 1_000, 31, 10, 22);

    @Test
    void registerLayoutKeepsTheFirstLayoutOfEachIdSpace() {
        assertEquals(MILLIS, store.registerLayout(ns, "order", MILLIS));
        assertEquals(MILLIS, store.registerLayout(ns, "order", SECONDS), "the first layout stays");
        assertEquals(SECONDS, store.registerLayout(ns, "batch", SECONDS), "another name is another id space");
        assertEquals(SECONDS, store.registerLayout(ns + "-other", "order", SECONDS), "another namespace too");
        assertEquals(MILLIS, store.registerLayout(ns, "order", MILLIS));
    }

    @Test
    void idSpaceNamesAtTheEdgesOfTheRuleAreKeptExactly() {
        // MariaDB's cosid_layout compares names in the table's default collation, which ignores case: there
        // "Order" and "order" share one layout record, so only one of them is tried here
        List<String> names = BadNames.EDGES.stream().filter(name -> !name.equals("Order")).toList();
        for (int i = 0; i < names.size(); i++) {
            LayoutRecord layout = new LayoutRecord(1_577_203_200_000L + i, 1, 41, 10, 12);
            assertEquals(layout, store.registerLayout(ns, names.get(i), layout), names.get(i));
        }
        for (int i = 0; i < names.size(); i++) {
            assertEquals(1_577_203_200_000L + i, store.registerLayout(ns, names.get(i), SECONDS).epochMillis(),
                    names.get(i) + " kept its own record");
        }
        assertThrows(IllegalArgumentException.class, () -> store.registerLayout("bad/ns", "order", MILLIS));
    }

    @Test
    void everyIdSpaceNameOutsideTheRuleIsRefusedWithItsMessageAndRecordsNothing() {
        for (String bad : BadNames.ALL) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> store.registerLayout(ns, bad, MILLIS), bad);
            assertEquals(BadNames.refusal(bad), refused.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> store.registerLayout(ns, null, MILLIS));
    }

    @Test
    void aRenewalFindsNoLeaseOnceItsSlotRecordIsGone() throws Exception {
        SlotLease lease = store.acquire(ns, 2, owner("a"), LONG).orElseThrow();
        deleteSlotRecord(ns, 2);
        assertEquals(Optional.empty(), store.renew(lease, LONG));
        assertFalse(store.release(lease, lease.floor()));
        SlotRecord left = record(2);
        assertTrue(left == null || (left.owner() == null && left.fence() < lease.fence()),
                "no lease is made up for the gone record: " + left);
    }

    @Test
    void aRenewalFindsNoLeaseOnceTheNamespaceRecordIsGone() throws Exception {
        SlotLease lease = store.acquire(ns, 3, owner("a"), LONG).orElseThrow();
        deleteNamespaceRecord(ns);
        assertEquals(Optional.empty(), store.namespace(ns));
        assertEquals(Optional.empty(), store.renew(lease, LONG));
    }

    // ---- segment counters ----


    @Test
    void aSegmentReservationFromAFreshNameStartsAtOne() {
        SegmentRange range = store.reserveSegment(ns, "invoice", 100);
        assertEquals(new SegmentRange(ns, "invoice", 1, 100), range);
        assertEquals(100, range.size());
        assertEquals(new TreeMap<>(java.util.Map.of("invoice", 100L)), store.segments(ns));
        assertTrue(store.read(ns).slots().isEmpty(), "a segment counter is no slot record");
    }

    @Test
    void consecutiveSegmentReservationsAreContiguousAndEachNameCountsApart() throws Exception {
        assertEquals(new SegmentRange(ns, "invoice", 1, 10), store.reserveSegment(ns, "invoice", 10));
        assertEquals(new SegmentRange(ns, "invoice", 11, 15), store.reserveSegment(ns, "invoice", 5));
        assertEquals(new SegmentRange(ns, "invoice", 16, 16), store.reserveSegment(ns, "invoice", 1));
        assertEquals(new SegmentRange(ns, "order", 1, 3), store.reserveSegment(ns, "order", 3));
        String other = ns + "-other";
        store.register(other, new NamespaceRecord(16, 1_000));
        assertEquals(new SegmentRange(other, "invoice", 1, 7), store.reserveSegment(other, "invoice", 7),
                "another namespace is another counter");
        assertEquals(new SegmentRange(ns, "invoice", 17, 20), store.reserveSegment(ns, "invoice", 4));
    }

    @Test
    void segmentNamesAtTheEdgesOfTheRuleAreKeptExactlyAndListed() {
        List<String> names = BadNames.EDGES;
        for (int i = 0; i < names.size(); i++) {
            store.raiseSegment(ns, names.get(i), 100L * i);
        }
        for (int i = 0; i < names.size(); i++) {
            assertEquals(100L * i + 1, store.reserveSegment(ns, names.get(i), 1).first(), names.get(i));
        }
        assertEquals(new java.util.TreeSet<>(names), store.segments(ns).keySet(),
                "\"Order\" and \"order\" are two counters");
    }

    @Test
    void everySegmentNameOutsideTheRuleIsRefusedWithItsMessageAndWritesNothing() {
        store.reserveSegment(ns, "kept", 5);
        for (String bad : BadNames.ALL) {
            IllegalArgumentException reserve = assertThrows(IllegalArgumentException.class,
                    () -> store.reserveSegment(ns, bad, 1), bad);
            assertEquals(BadNames.refusal(bad), reserve.getMessage());
            IllegalArgumentException raise = assertThrows(IllegalArgumentException.class,
                    () -> store.raiseSegment(ns, bad, 10), bad);
            assertEquals(BadNames.refusal(bad), raise.getMessage());
        }
        assertEquals(new TreeMap<>(java.util.Map.of("kept", 5L)), store.segments(ns), "only the counter of the rule");
    }

    @Test
    void manyThreadsReservingSegmentsAtOnceNeverShareAnId() throws Exception {
        int threads = 8;
        int each = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<SegmentRange>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    go.await();
                    List<SegmentRange> ranges = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        ranges.add(store.reserveSegment(ns, "race", 1 + (thread + i) % 7));
                    }
                    return ranges;
                }));
            }
            go.countDown();
            List<SegmentRange> all = new ArrayList<>();
            long sizes = 0;
            for (Future<List<SegmentRange>> result : results) {
                for (SegmentRange range : result.get(120, TimeUnit.SECONDS)) {
                    all.add(range);
                    sizes += range.size();
                }
            }
            all.sort(Comparator.comparingLong(SegmentRange::first));
            long expectedFirst = 1;
            for (SegmentRange range : all) {
                assertEquals(expectedFirst, range.first(), "ranges overlap or leave a hole at " + range);
                expectedFirst = range.last() + 1;
            }
            assertEquals(threads * each, all.size());
            assertEquals(sizes, store.segments(ns).get("race"), "the counter is the sum of the sizes");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theUnusedTailOfASegmentGoesBackOnlyWhileNoLaterRangeWasReserved() {
        SegmentRange first = store.reserveSegment(ns, "tail", 100);
        assertTrue(store.returnSegmentTail(first, 40));
        assertEquals(40L, store.segments(ns).get("tail"));
        SegmentRange second = store.reserveSegment(ns, "tail", 10);
        assertEquals(new SegmentRange(ns, "tail", 41, 50), second, "the next range continues at the last issued + 1");
        SegmentRange third = store.reserveSegment(ns, "tail", 10);
        assertFalse(store.returnSegmentTail(second, 45), "a later range exists: the tail stays a gap");
        assertEquals(60L, store.segments(ns).get("tail"));
        assertTrue(store.returnSegmentTail(third, third.first() - 1), "a range of which nothing was issued");
        assertEquals(50L, store.segments(ns).get("tail"));
        assertFalse(store.returnSegmentTail(third, third.first() - 1), "a tail goes back once");
        assertEquals(50L, store.segments(ns).get("tail"));
        assertEquals(new SegmentRange(ns, "tail", 51, 51), store.reserveSegment(ns, "tail", 1));
    }

    @Test
    void aSegmentTailOutsideItsRangeIsRefusedAndChangesNothing() {
        SegmentRange range = store.reserveSegment(ns, "tail", 10);
        assertThrows(IllegalArgumentException.class, () -> store.returnSegmentTail(range, 11));
        assertThrows(IllegalArgumentException.class, () -> store.returnSegmentTail(range, -1));
        assertEquals(10L, store.segments(ns).get("tail"));
    }

    @Test
    void raiseSegmentNeverLowersACounter() {
        assertEquals(1_000, store.raiseSegment(ns, "migrated", 1_000));
        assertEquals(new SegmentRange(ns, "migrated", 1_001, 1_010), store.reserveSegment(ns, "migrated", 10));
        assertEquals(1_010, store.raiseSegment(ns, "migrated", 5), "a lower value leaves the counter");
        assertEquals(1_010, store.raiseSegment(ns, "migrated", 1_010));
        assertEquals(5_000, store.raiseSegment(ns, "migrated", 5_000));
        assertEquals(5_001, store.reserveSegment(ns, "migrated", 1).first());
        assertEquals(5_001L, store.segments(ns).get("migrated"));
    }

    @Test
    void segmentsListsEveryCounterOfTheNamespaceByName() {
        assertTrue(store.segments(ns).isEmpty());
        store.reserveSegment(ns, "b", 2);
        store.reserveSegment(ns, "a", 3);
        store.raiseSegment(ns, "c", 77);
        SortedMap<String, Long> expected = new TreeMap<>(java.util.Map.of("a", 3L, "b", 2L, "c", 77L));
        assertEquals(expected, store.segments(ns));
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(store.segments(ns).keySet()));
        assertTrue(store.segments(ns + "-never").isEmpty());
    }

    @Test
    void segmentsListsNoCounterOfANamespaceWhoseNameStartsWithThisOne() {
        store.reserveSegment(ns, "a", 1);
        for (String neighbour : List.of(ns + ".x", ns + "-x", ns + "_x", ns + "x")) {
            store.register(neighbour, new NamespaceRecord(16, 1_000));
            store.reserveSegment(neighbour, "b", 2);
            assertEquals(new TreeMap<>(java.util.Map.of("b", 2L)), store.segments(neighbour), neighbour);
        }
        assertEquals(new TreeMap<>(java.util.Map.of("a", 1L)), store.segments(ns));
    }

    @Test
    void aSegmentReservationPastTheLargestIdIsRefusedAndChangesNothing() {
        long top = Long.MAX_VALUE - 5;
        store.raiseSegment(ns, "full", top);
        assertThrows(RuntimeException.class, () -> store.reserveSegment(ns, "full", 10));
        assertEquals(top, store.segments(ns).get("full"));
        assertEquals(new SegmentRange(ns, "full", top + 1, Long.MAX_VALUE), store.reserveSegment(ns, "full", 5));
    }

    @Test
    void badSegmentInputIsRefusedWithAClearErrorAndChangesNothing() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> store.reserveSegment(ns, "invoice", 0))
                .getMessage().contains("0"));
        assertThrows(IllegalArgumentException.class, () -> store.reserveSegment(ns, "invoice", -5));
        assertThrows(IllegalArgumentException.class, () -> store.reserveSegment("bad/ns", "invoice", 1));
        assertThrows(IllegalArgumentException.class, () -> store.segments("bad/ns"));
        String unregistered = ns + "-unregistered";
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> store.reserveSegment(unregistered, "invoice", 1));
        assertTrue(refused.getMessage().contains(unregistered) && refused.getMessage().contains("not registered"),
                refused.getMessage());
        assertThrows(IllegalStateException.class, () -> store.raiseSegment(unregistered, "invoice", 10));
        assertTrue(store.segments(ns).isEmpty(), "nothing was reserved: " + store.segments(ns));
        assertTrue(store.segments(unregistered).isEmpty());
        assertEquals(Optional.empty(), store.namespace(unregistered), "no namespace was made up");
    }

    @Test
    void aSegmentCounterWhoseNamespaceRecordVanishedIsNeverRestartedAtOne() throws Exception {
        SegmentRange before = store.reserveSegment(ns, "invoice", 10);
        assertEquals(1, before.first());
        deleteNamespaceRecord(ns);
        RuntimeException refused = assertThrows(RuntimeException.class, () -> store.reserveSegment(ns, "invoice", 10));
        if (remembersRegisteredNamespaces()) {
            assertTrue(refused instanceof StoreDataLostException, "expected StoreDataLostException: " + refused);
            assertThrows(StoreDataLostException.class, () -> store.raiseSegment(ns, "invoice", 100));
        } else {
            assertTrue(refused instanceof IllegalStateException, "expected IllegalStateException: " + refused);
        }
        assertTrue(refused.getMessage().contains(ns), refused.getMessage());
        assertEquals(Optional.empty(), store.namespace(ns), "no namespace record was made up");
        Long counter = store.segments(ns).get("invoice");
        assertTrue(counter == null || counter == before.last(), "the counter moved: " + counter);
    }
}
