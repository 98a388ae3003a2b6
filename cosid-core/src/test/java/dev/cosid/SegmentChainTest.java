package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.SegmentRange;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The segment chain on its own: its edges (ranges of one id, the trigger, close, bad answers), step by step. */
class SegmentChainTest {

    private static final long T0 = 1_800_000_000_000L;

    private final ManualClock clock = new ManualClock(T0);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(clock);
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    /** A store that answers while a caller waits: the wait runs the due fetch. */
    private final Clock answering = new Clock() {
        @Override
        public long nowMillis() {
            return clock.nowMillis();
        }

        @Override
        public long monotonicNanos() {
            return clock.monotonicNanos();
        }

        @Override
        public void park(long nanos) {
            scheduler.runDue();
            clock.park(nanos);
        }
    };

    SegmentChainTest() {
        store.register("shop", new NamespaceRecord(1024, 1_000));
    }

    private SegmentChain chain(SegmentPolicy policy, Clock chainClock, long maxWaitNanos) {
        return SegmentChain.start("shop", "orders", store, chainClock, scheduler, CosIdListener.NOOP, policy,
                maxWaitNanos, store.reserveSegment("shop", "orders", policy.firstStep()));
    }

    private long counter() {
        return store.segments("shop").getOrDefault("orders", 0L);
    }

    @Test
    void rangesOfOneIdAreIssuedDenselyOneByOneAndInBatches() {
        SegmentChain ids = chain(SegmentPolicy.of(1, 1, Duration.ofSeconds(1)), answering, Duration.ofSeconds(1).toNanos());
        long expected = 1;
        for (int round = 0; round < 20; round++) {
            assertEquals(expected++, ids.nextId());
            for (long id : ids.nextIds(3)) {
                assertEquals(expected++, id, "batches cross ranges of one id without a gap");
            }
        }
        assertEquals(expected - 1, ids.close());
        assertEquals(expected - 1, counter(), "the tail handed back");
    }

    @Test
    void theFirstRangeAsksForTheNextAtItsMiddleAndNotBefore() {
        SegmentChain ids = chain(SegmentPolicy.of(4, 4, Duration.ofSeconds(1)), clock, 0);
        scheduler.runDue(); // the fetch start asks for finds a whole range ahead and reserves nothing
        assertEquals(0, scheduler.pending());
        ids.nextId();
        ids.nextId();
        assertEquals(0, scheduler.pending(), "ids 1 and 2 lie before the middle");
        ids.nextId();
        assertEquals(1, scheduler.pending(), "id 3 asks for the next range");
    }

    @Test
    void aBatchAsksForTheNextRangeWhenItTakesTheMiddleId() {
        SegmentChain ids = chain(SegmentPolicy.of(4, 4, Duration.ofSeconds(1)), clock, 0);
        scheduler.runDue();
        ids.nextIds(2);
        assertEquals(0, scheduler.pending(), "ids 1..2 end before the middle, id 3");
        ids.nextIds(2);
        assertEquals(1, scheduler.pending(), "ids 3..4 start at it");
    }

    @Test
    void closeReturnsTheLastIdCountsEveryIdAndHandsBackEveryUnusedRange() {
        SegmentChain ids = chain(SegmentPolicy.of(4, 4, Duration.ofSeconds(1)), clock, 0);
        for (int i = 0; i < 3; i++) {
            ids.nextId();
            scheduler.runDue();
        }
        assertTrue(counter() > 4, "a range was reserved ahead");
        assertEquals(3, ids.close());
        assertEquals(3, counter(), "every unused range and the tail handed back");
        assertEquals(3, ids.issued());
        assertEquals(0, ids.close(), "a second close has nothing to report");
        assertEquals(IdUnavailableException.Reason.CLOSED,
                assertThrows(IdUnavailableException.class, ids::nextId).reason());
    }

    @Test
    void closeAfterAnotherRuntimeReservedLeavesTheTailAsAGapAndStillReportsTheLastId() {
        SegmentChain ids = chain(SegmentPolicy.of(4, 4, Duration.ofSeconds(1)), clock, 0);
        for (int i = 0; i < 3; i++) {
            ids.nextId();
            scheduler.runDue();
        }
        SegmentRange other = store.reserveSegment("shop", "orders", 10);
        assertEquals(3, ids.close());
        assertEquals(other.last(), counter(), "nothing handed back under the other runtime's range");
    }

    @Test
    void aRangeThatOverlapsTheLastOneStopsTheChainBeforeAnyIdRepeats() {
        SegmentChain ids = chain(SegmentPolicy.of(2, 2, Duration.ofSeconds(1)), clock, 0);
        scheduler.runDue();
        assertEquals(1, ids.nextId());
        assertEquals(2, ids.nextId()); // asks for the next range
        scheduler.runDue(); // reserves 3..4
        assertEquals(3, ids.nextId()); // the last range in use: asks again
        // the store goes back one id (a restored backup, say): its next answer is 4..5, overlapping 3..4
        assertTrue(store.returnSegmentTail(new SegmentRange("shop", "orders", 3, 4), 3));
        scheduler.runDue(); // the chain stops for good, id 4 of its current range included
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertEquals(IdUnavailableException.Reason.CLOSED, refused.reason());
        assertTrue(refused.getMessage().contains("must increase"), refused.getMessage());
        assertTrue(refused.getMessage().contains("first=4, last=5"), refused.getMessage());
    }

    @Test
    void aRangeThatReachesTheClosedJumpIsRefused() {
        store.raiseSegment("shop", "orders", SegmentChain.CLOSED_JUMP - 2);
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> chain(SegmentPolicy.of(2, 2, Duration.ofSeconds(1)), clock, 0));
        assertTrue(refused.getMessage().contains("below 2^62"), refused.getMessage());
    }

    @Test
    void aRangeThatEndsJustBelowTheClosedJumpIsTaken() {
        store.raiseSegment("shop", "orders", SegmentChain.CLOSED_JUMP - 3);
        SegmentChain ids = chain(SegmentPolicy.of(2, 2, Duration.ofSeconds(1)), clock, 0);
        assertEquals(SegmentChain.CLOSED_JUMP - 2, ids.nextId());
        assertEquals(SegmentChain.CLOSED_JUMP - 1, ids.nextId());
        assertEquals("orders", ids.name());
    }

    @Test
    void aBatchOfOneIsOneIdAndABatchOfNoneIsRefused() {
        SegmentChain ids = chain(SegmentPolicy.of(4, 4, Duration.ofSeconds(1)), clock, 0);
        assertEquals(1, ids.nextIds(1).length);
        assertThrows(IllegalArgumentException.class, () -> ids.nextIds(0));
    }

    @Test
    void theIdsIssuedAreCountedAcrossRanges() {
        SegmentChain ids = chain(SegmentPolicy.of(3, 3, Duration.ofSeconds(1)), answering, Duration.ofSeconds(1).toNanos());
        for (int i = 0; i < 10; i++) {
            ids.nextId();
        }
        assertEquals(10, ids.issued());
    }

    @Test
    void aCallerWaitsExactlyItsBoundForARangeThatDoesNotCome() {
        clock.advance(Duration.ofSeconds(5)); // monotonic time far from zero
        long bound = 150_050; // not a whole number of 100 µs parks: the last one is cut to what is left
        SegmentChain ids = chain(SegmentPolicy.of(1, 1, Duration.ofSeconds(1)), clock, bound);
        ids.nextId();
        long before = clock.monotonicNanos();
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertEquals(IdUnavailableException.Reason.SEGMENT_PENDING, refused.reason());
        assertEquals(bound, clock.monotonicNanos() - before);
    }

    /** Draws one id at a time until the chain asks for a fetch, and returns how many it drew. */
    private static int drawUntilAFetchIsAsked(SegmentChain ids, ManualScheduler scheduler) {
        int drawn = 0;
        while (scheduler.pending() == 0) {
            ids.nextId();
            drawn++;
        }
        return drawn;
    }

    @Test
    void rangesFollowARiseInTheRateAtOnceAndAFallByHalves() {
        clock.advance(Duration.ofSeconds(5)); // monotonic time far from zero
        SegmentChain ids = chain(SegmentPolicy.of(100, 1_000_000, Duration.ofSeconds(2)), clock, 0);
        scheduler.runDue();
        // a rise: what was drawn in 10 ms, at once
        int first = drawUntilAFetchIsAsked(ids, scheduler);
        clock.advance(Duration.ofMillis(10));
        scheduler.runDue();
        double rate = first * 100.0; // ids a second
        assertEquals((long) Math.ceil(rate * 2), ids.step(), "two seconds of use at the rate seen");
        // a fall: what was drawn since, over a whole second, moves the rate half-way towards it
        int second = drawUntilAFetchIsAsked(ids, scheduler);
        clock.advance(Duration.ofSeconds(1));
        scheduler.runDue();
        rate = (rate + second) / 2;
        assertEquals((long) Math.ceil(rate * 2), ids.step(), "half-way down");
    }

    @Test
    void aCallerThatFoundTheChainEmptyDoublesTheNextRange() {
        SegmentChain ids = chain(SegmentPolicy.of(100, 1_000_000, Duration.ofSeconds(1)), clock, 0);
        scheduler.runDue();
        ids.nextIds(100);
        assertThrows(IdUnavailableException.class, ids::nextId, "the fetch has not run: the chain is empty");
        scheduler.runDue();
        assertEquals(200, ids.step(), "the starved caller doubles the range");
    }

    @Test
    void eachFetchIsAskedForWhenAboutHalfTheDistanceIsLeft() {
        // ranges of 10 ids; the first fetch sees 6 ids drawn in 1 ms, so the chain keeps 10 ms of use at
        // 6,000 ids a second ahead: 60 ids, six ranges
        SegmentChain ids = chain(SegmentPolicy.of(10, 10, Duration.ofMillis(10)), clock, 0);
        scheduler.runDue();
        long last = 0;
        while (scheduler.pending() == 0) {
            last = ids.nextId();
        }
        assertEquals(6, last, "the first range asks at its middle");
        clock.advance(Duration.ofMillis(1));
        scheduler.runDue();
        assertEquals(64, counter() - last, "whole ranges up to sixty ids ahead");
        for (int round = 0; round < 5; round++) {
            while (scheduler.pending() == 0) {
                last = ids.nextId();
            }
            long ahead = counter() - last;
            // the trigger is the draw after which half the distance (30) is left, one id late at most
            assertTrue(ahead == 29 || ahead == 30, "round " + round + ": asked with " + ahead + " ids ahead");
            scheduler.runDue();
            long topped = counter() - last;
            assertTrue(topped >= 60 && topped < 70, "topped up with whole ranges to the distance: " + topped);
        }
    }

    @Test
    void aFailingStoreIsReportedAndRetriedAfter100MsThen200Ms() {
        FaultyStore faulty = new FaultyStore(store);
        java.util.List<Integer> attempts = new java.util.ArrayList<>();
        CosIdListener listener = new CosIdListener() {
            @Override
            public void onSegmentFailed(String name, Throwable failure, int attempt) {
                attempts.add(attempt);
            }
        };
        SegmentChain ids = SegmentChain.start("shop", "orders", faulty, clock, scheduler, listener,
                SegmentPolicy.of(2, 2, Duration.ofSeconds(1)), 0, store.reserveSegment("shop", "orders", 2));
        ids.nextId();
        ids.nextId();
        faulty.failEverything = true;
        scheduler.runDue();
        assertEquals(java.util.List.of(1), attempts);
        assertEquals(java.util.Optional.of(Duration.ofMillis(100)), scheduler.nextDelay());
        scheduler.runNext();
        assertEquals(java.util.List.of(1, 2), attempts);
        assertEquals(java.util.Optional.of(Duration.ofMillis(200)), scheduler.nextDelay());
        faulty.failEverything = false;
        scheduler.runNext();
        assertEquals(3, ids.nextId(), "the retry reserved the next range");
        assertTrue(ids.toString().startsWith("SegmentChain[shop/orders, "), ids.toString());
    }

    @Test
    void aCallerThatSwitchedRangesBeforeWaitingStillWaitsItsWholeBound() {
        clock.advance(Duration.ofSeconds(5)); // monotonic time far from zero
        long bound = 300_000;
        SegmentChain ids = chain(SegmentPolicy.of(1, 1, Duration.ofSeconds(1)), clock, bound);
        scheduler.runDue();
        assertEquals(1, ids.nextId()); // asks for the next range
        scheduler.runDue(); // reserves 2..2
        long before = clock.monotonicNanos();
        assertThrows(IdUnavailableException.class, () -> ids.nextIds(2), "2 is drawn, 3 never comes");
        assertEquals(bound, clock.monotonicNanos() - before);
    }

    @Test
    void aSchedulerThatRefusesAFetchLetsTheNextCallerAskAgain() {
        int[] asked = new int[1];
        dev.cosid.time.Scheduler refusing = new dev.cosid.time.Scheduler() {
            @Override
            public Cancellable schedule(Duration delay, Runnable task) {
                asked[0]++;
                throw new java.util.concurrent.RejectedExecutionException("closed");
            }

            @Override
            public void close() {
            }
        };
        SegmentChain ids = SegmentChain.start("shop", "orders", store, clock, refusing, CosIdListener.NOOP,
                SegmentPolicy.of(1, 1, Duration.ofSeconds(1)), 0, store.reserveSegment("shop", "orders", 1));
        assertEquals(1, asked[0], "start asks once");
        ids.nextId(); // the trigger of the first range: asks again, as the refusal cleared the flag
        assertEquals(2, asked[0]);
    }
}
