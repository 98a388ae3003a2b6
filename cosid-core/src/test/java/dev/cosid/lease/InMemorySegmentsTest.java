package dev.cosid.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.time.ManualClock;
import org.junit.jupiter.api.Test;

/** The in-memory store's segment counters: one atomic step per reservation, hand-back and raise. */
class InMemorySegmentsTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore(new ManualClock(1_800_000_000_000L));

    InMemorySegmentsTest() {
        store.register("shop", new NamespaceRecord(1024, 1_000));
    }

    private long counter() {
        return store.segments("shop").getOrDefault("orders", 0L);
    }

    @Test
    void aReservationTakesAtLeastOneIdAndMovesTheCounterByItsSize() {
        assertEquals(new SegmentRange("shop", "orders", 1, 1), store.reserveSegment("shop", "orders", 1));
        assertEquals(new SegmentRange("shop", "orders", 2, 4), store.reserveSegment("shop", "orders", 3));
        assertThrows(IllegalArgumentException.class, () -> store.reserveSegment("shop", "orders", 0));
        assertEquals(4, counter());
    }

    @Test
    void aTailIsHandedBackOnlyWhileTheCounterEndsAtItsRangeAndOnlyWithinIt() {
        SegmentRange range = store.reserveSegment("shop", "orders", 10);
        assertThrows(IllegalArgumentException.class, () -> store.returnSegmentTail(range, 11));
        assertThrows(IllegalArgumentException.class, () -> store.returnSegmentTail(range, -1));
        assertTrue(store.returnSegmentTail(range, 10), "nothing left to hand back is still a success");
        SegmentRange later = store.reserveSegment("shop", "orders", 5);
        assertFalse(store.returnSegmentTail(range, 3), "a later range was reserved after it");
        assertEquals(15, counter());
        assertTrue(store.returnSegmentTail(later, 10), "the whole of the later range: none of it issued");
        assertEquals(10, counter());
    }

    @Test
    void raisingTheCounterNeverLowersIt() {
        assertEquals(100, store.raiseSegment("shop", "orders", 100));
        assertEquals(100, store.raiseSegment("shop", "orders", 50));
        assertEquals(101, store.reserveSegment("shop", "orders", 1).first());
    }

    @Test
    void everySegmentCallRefusesAnUnregisteredNamespaceOrABadName() {
        SegmentRange range = new SegmentRange("other", "orders", 1, 1);
        assertThrows(IllegalStateException.class, () -> store.reserveSegment("other", "orders", 1));
        assertThrows(IllegalStateException.class, () -> store.returnSegmentTail(range, 0));
        assertThrows(IllegalStateException.class, () -> store.raiseSegment("other", "orders", 1));
        assertThrows(IllegalArgumentException.class, () -> store.reserveSegment("shop", "bad name", 1));
        assertEquals("memory:", store.describe());
    }
}
