package dev.cosid.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every row of the store-operations table, on the in-memory store with a manual store clock. */
class LeaseTransitionsTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final LeaseTerms TERMS = new LeaseTerms(30_000, 1_000);
    private static final String NS = "orders";

    private final ManualClock storeClock = new ManualClock(T0);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(storeClock);
    private final Owner a = new Owner("a", UUID.randomUUID());
    private final Owner b = new Owner("b", UUID.randomUUID());

    LeaseTransitionsTest() {
        store.register(NS, new NamespaceRecord(4, 1_000));
    }

    private SlotRecord record(int slot) {
        return store.records(NS).stream().filter(r -> r.slot() == slot).findFirst().orElseThrow();
    }

    @Test
    void acquireOfAFreeSlotAppliesTheTableRow() {
        SlotLease lease = store.acquire(NS, 0, a, TERMS).orElseThrow();
        assertEquals(new SlotLease(NS, 0, a, 1, T0 + 30_000, 0, T0 + 31_000, T0), lease);
        assertEquals(new SlotRecord(0, a, "a", 1, T0 + 30_000, 0, T0 + 31_000, T0 + 31_000), record(0));
    }

    @Test
    void acquireWaitsForExpiryMeasuredByTheStoreClock() {
        store.acquire(NS, 0, a, TERMS).orElseThrow();
        storeClock.set(T0 + 29_999);
        assertEquals(Optional.empty(), store.acquire(NS, 0, b, TERMS));
        storeClock.set(T0 + 30_000);
        SlotLease taken = store.acquire(NS, 0, b, TERMS).orElseThrow();
        assertEquals(2, taken.fence());
        assertEquals(T0 + 31_000, taken.floor(), "the floor is the previous holder's ceiling");
        assertEquals(T0 + 61_000, taken.ceiling());
    }

    @Test
    void aStoreClockThatJumpsBackNeverLowersFloorOrCeiling() {
        SlotLease first = store.acquire(NS, 0, a, TERMS).orElseThrow();
        storeClock.set(T0 - 3_600_000);
        SlotLease renewed = store.renew(first, TERMS).orElseThrow();
        assertEquals(first.expiresAt(), renewed.expiresAt());
        assertEquals(first.ceiling(), renewed.ceiling());
        // a releases having issued up to T0 + 20 s; the store clock is an hour behind when b takes over
        assertTrue(store.release(renewed, T0 + 20_000));
        SlotLease second = store.acquire(NS, 0, b, TERMS).orElseThrow();
        assertEquals(T0 + 20_000, second.floor());
        assertEquals(T0 - 3_600_000 + 30_000, second.expiresAt());
        assertEquals(second.floor(), second.ceiling(), "the ceiling is never below the floor");
    }

    @Test
    void aStoreClockThatJumpsBackKeepsTheNextFloorPastEveryEarlierCeiling() {
        SlotLease first = store.acquire(NS, 1, a, TERMS).orElseThrow();
        storeClock.set(T0 + 40_000);
        SlotLease second = store.acquire(NS, 1, b, TERMS).orElseThrow();
        assertEquals(first.ceiling(), second.floor());
        storeClock.set(T0 + 80_000);
        Owner c = Owner.of("c");
        SlotLease third = store.acquire(NS, 1, c, TERMS).orElseThrow();
        // the store clock jumps far back; the expired lease is taken again at a floor that never drops
        storeClock.set(T0 - 1_000_000);
        assertEquals(Optional.empty(), store.acquire(NS, 1, a, TERMS), "the jump back makes the lease live again");
        storeClock.set(third.expiresAt());
        SlotLease fourth = store.acquire(NS, 1, Owner.of("d"), TERMS).orElseThrow();
        assertEquals(third.ceiling(), fourth.floor());
        assertTrue(second.ceiling() <= third.floor());
    }

    @Test
    void aStoreClockThatJumpsForwardEndsTheLeaseButNotTheWindowOrder() {
        SlotLease first = store.acquire(NS, 2, a, TERMS).orElseThrow();
        storeClock.set(T0 + 3_600_000);
        SlotLease second = store.acquire(NS, 2, b, TERMS).orElseThrow();
        assertEquals(first.ceiling(), second.floor());
        assertEquals(Optional.empty(), store.renew(first, TERMS), "the fence moved on");
        storeClock.set(T0);
        SlotLease renewed = store.renew(second, TERMS).orElseThrow();
        assertEquals(second.ceiling(), renewed.ceiling(), "a renewal under a clock that stepped back keeps the ceiling");
    }

    @Test
    void renewMovesExpiryAndCeilingAndKeepsTheFence() {
        SlotLease lease = store.acquire(NS, 0, a, TERMS).orElseThrow();
        storeClock.advance(Duration.ofSeconds(10));
        SlotLease renewed = store.renew(lease, TERMS).orElseThrow();
        assertEquals(new SlotLease(NS, 0, a, 1, T0 + 40_000, 0, T0 + 41_000, T0 + 10_000), renewed);
        assertEquals(T0 + 41_000, record(0).nextFloor());
    }

    @Test
    void aReplayedRenewalSucceedsAndChangesNothingMore() {
        SlotLease lease = store.acquire(NS, 0, a, TERMS).orElseThrow();
        storeClock.advance(Duration.ofSeconds(10));
        SlotLease once = store.renew(lease, TERMS).orElseThrow();
        SlotLease replay = store.renew(lease, TERMS).orElseThrow();
        assertEquals(once, replay);
    }

    @Test
    void renewAndReleaseNeedTheSameIncarnationAndFence() {
        SlotLease lease = store.acquire(NS, 0, a, TERMS).orElseThrow();
        Owner sameKeyNewIncarnation = new Owner("a", UUID.randomUUID());
        SlotLease impostor = new SlotLease(NS, 0, sameKeyNewIncarnation, 1, 0, 0, 0, 0);
        assertEquals(Optional.empty(), store.renew(impostor, TERMS));
        assertEquals(false, store.release(impostor, T0));
        SlotLease staleFence = new SlotLease(NS, 0, a, 2, 0, 0, 0, 0);
        assertEquals(Optional.empty(), store.renew(staleFence, TERMS));
        assertEquals(false, store.release(staleFence, T0));
        assertEquals(a, record(0).owner());
        assertEquals(1, record(0).fence());
        assertEquals(lease.ceiling(), record(0).nextFloor());
    }

    @Test
    void releaseHandsTheExactLastIssuedMillisecondToTheNextHolder() {
        SlotLease lease = store.acquire(NS, 3, a, TERMS).orElseThrow();
        assertTrue(store.release(lease, T0 + 123));
        SlotRecord released = record(3);
        assertNull(released.owner());
        assertEquals("a", released.lastOwnerKey());
        assertEquals(2, released.fence());
        assertEquals(T0 + 123, released.nextFloor());
        SlotLease next = store.acquire(NS, 3, b, TERMS).orElseThrow();
        assertEquals(T0 + 123, next.floor());
        assertEquals(3, next.fence());
    }

    @Test
    void releaseKeepsTheNextFloorBetweenFloorAndCeiling() {
        SlotLease first = store.acquire(NS, 0, a, TERMS).orElseThrow();
        assertTrue(store.release(first, Long.MAX_VALUE));
        assertEquals(first.ceiling(), record(0).nextFloor());
        SlotLease second = store.acquire(NS, 0, b, TERMS).orElseThrow();
        assertTrue(store.release(second, 5));
        assertEquals(second.floor(), record(0).nextFloor());
    }

    @Test
    void additionSaturatesAtTheEndOfTheTimeLine() {
        assertEquals(Long.MAX_VALUE, LeaseTransitions.saturatedAdd(Long.MAX_VALUE - 5, 10));
        assertEquals(15, LeaseTransitions.saturatedAdd(5, 10));
        SlotRecord far = new SlotRecord(0, null, null, 0, 0, 0, 0, 0);
        SlotRecord taken = LeaseTransitions.acquire(far, a, Long.MAX_VALUE - 1, TERMS).orElseThrow();
        assertEquals(Long.MAX_VALUE, taken.expiresAt());
        assertEquals(Long.MAX_VALUE, taken.ceiling());
    }

    @Test
    void aColdStartGuardMakesANewRecordStartPastAnyEarlierWindow() {
        LeaseTerms guarded = new LeaseTerms(30_000, 1_000, true);
        SlotLease lease = store.acquire(NS, 2, a, guarded).orElseThrow();
        assertEquals(T0 + 31_000, lease.floor(), "now + ttl + tolerance");
        assertEquals(lease.floor(), lease.ceiling(), "nothing may be issued before the next renewal");
        storeClock.advance(Duration.ofSeconds(10));
        SlotLease renewed = store.renew(lease, guarded).orElseThrow();
        assertEquals(T0 + 41_000, renewed.ceiling());
        // an existing record keeps its own next floor: the guard only applies to records it creates
        assertTrue(store.release(renewed, T0 + 35_000));
        assertEquals(T0 + 35_000, store.acquire(NS, 2, b, guarded).orElseThrow().floor());
    }

    @Test
    void theTakeoverGuardStartsAnExpiredSlotPastTtlAndToleranceAndLeavesOthersAlone() {
        LeaseTerms guarded = new LeaseTerms(30_000, 1_000, false, true);
        Owner a = Owner.of("a");
        SlotRecord expired = new SlotRecord(0, a, "a", 3, T0 - 1, 0, T0 + 999, T0 + 999);
        SlotRecord taken = LeaseTransitions.acquire(expired, Owner.of("b"), T0, guarded).orElseThrow();
        assertEquals(T0 + 31_000, taken.floor());
        assertEquals(T0 + 31_000, taken.ceiling());
        SlotRecord released = new SlotRecord(0, null, "a", 4, T0 - 1, 0, T0 + 999, T0 + 500);
        assertEquals(T0 + 500, LeaseTransitions.acquire(released, Owner.of("b"), T0, guarded).orElseThrow().floor());
        SlotRecord far = new SlotRecord(0, a, "a", 3, T0 - 1, 0, T0 + 90_000, T0 + 90_000);
        assertEquals(T0 + 90_000, LeaseTransitions.acquire(far, Owner.of("b"), T0, guarded).orElseThrow().floor(),
                "a next floor past the guard's stays");
        assertEquals(T0 + 999, LeaseTransitions.acquire(expired, Owner.of("b"), T0, new LeaseTerms(30_000, 1_000))
                .orElseThrow().floor(), "without the guard an expired slot starts at its next floor");
    }

    @Test
    void saturatedAddAddsExactlyUntilALongOverflowsThenStops() {
        assertEquals(0, LeaseTransitions.saturatedAdd(0, 0));
        assertEquals(2, LeaseTransitions.saturatedAdd(5, -3));
        assertEquals(-2, LeaseTransitions.saturatedAdd(-5, 3));
        assertEquals(Long.MAX_VALUE, LeaseTransitions.saturatedAdd(Long.MAX_VALUE, 1));
        assertEquals(Long.MIN_VALUE, LeaseTransitions.saturatedAdd(Long.MIN_VALUE, -1));
        assertEquals(Long.MAX_VALUE - 1, LeaseTransitions.saturatedAdd(Long.MAX_VALUE, -1));
    }

    @Test
    void aStoreCallIsBoundedByASixthOfTheTtlButNeverBelowTheFloorNorAboveTheStoresOwn() {
        LeaseTerms terms = new LeaseTerms(60_000, 1_000);
        assertEquals(10_000, terms.callBoundMillis(30_000));
        assertEquals(5_000, terms.callBoundMillis(5_000));
        assertEquals(250, new LeaseTerms(600, 0).callBoundMillis(30_000), "never below 250 ms");
        assertEquals(1, new LeaseTerms(1, 0).ttlMillis(), "the shortest ttl");
        assertThrows(IllegalArgumentException.class, () -> new LeaseTerms(0, 0));
    }
}
