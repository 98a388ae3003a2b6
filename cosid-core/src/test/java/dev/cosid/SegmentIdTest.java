package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import dev.cosid.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Segment ids: dense, increasing, never repeated, handed back on a clean close, refused past the wait bound. */
class SegmentIdTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final SegmentPolicy SMALL = SegmentPolicy.of(100, 100_000, Duration.ofSeconds(1));

    private final ManualClock clock = new ManualClock(T0);
    private final InMemoryLeaseStore memory = new InMemoryLeaseStore(clock);
    private final FaultyStore store = new FaultyStore(memory);
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    private final List<SegmentRange> reserved = new CopyOnWriteArrayList<>();

    private CosIdRuntime.Builder builder(String owner) {
        return CosIdRuntime.builder()
                .namespace("shop")
                .store(store)
                .ownerKey(owner)
                .clock(clock)
                .scheduler(scheduler)
                .segmentPolicy(SMALL)
                .listener(new CosIdListener() {
                    @Override
                    public void onSegmentReserved(SegmentRange range) {
                        reserved.add(range);
                    }
                })
                .maxWait(Duration.ZERO);
    }

    /** Issues ids one by one, running the prefetch the hot path asks for after each. */
    private long[] issue(SegmentId ids, int count) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = ids.nextId();
            scheduler.runDue();
        }
        return out;
    }

    private long counter(String name) {
        return memory.segments("shop").getOrDefault(name, 0L);
    }

    @Test
    void idsStartAtOneAndAreDenseAndIncreasingWhileThePrefetchKeepsUp() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentId orders = runtime.segment("orders");
            long[] ids = issue(orders, 1_000);
            for (int i = 0; i < ids.length; i++) {
                assertEquals(i + 1, ids[i]);
            }
            long[] batch = orders.nextIds(50);
            assertEquals(1_001, batch[0]);
            assertEquals(1_050, batch[49]);
            assertSame(orders, runtime.segment("orders"));
            assertEquals(List.of(orders), runtime.segments());
        }
    }

    @Test
    void theHotPathNeverWaitsWhileTheStoreAnswersBeforeHalfARangeIsUsed() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentId orders = runtime.segment("orders");
            // maxWait is zero: any call that found no prefetched range would throw
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 60; i++) {
                    orders.nextId();
                }
                scheduler.runDue();
            }
            assertTrue(reserved.size() >= 11, "ranges reserved ahead: " + reserved);
        }
    }

    @Test
    void rangesGrowWithTheObservedRateWithinThePolicyBounds() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentChain orders = (SegmentChain) runtime.segment("orders");
            for (int i = 0; i < 50; i++) {
                orders.nextId();
            }
            clock.advance(Duration.ofMillis(10)); // 50 ids in 10 ms: 5,000 ids a second
            scheduler.runDue();
            assertEquals(5_000, reserved.get(reserved.size() - 1).size(), "the range after " + reserved);
            long[] burst = orders.nextIds(5_050);
            clock.advance(Duration.ofMillis(1)); // 5,050 ids in 1 ms: far above the max step
            scheduler.runDue();
            assertEquals(100_000, orders.step());
            assertEquals(5_100, burst[burst.length - 1]);
        }
    }

    @Test
    void smallFixedRangesAreKeptSeveralAheadToCoverThePrefetchTime() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentId orders = runtime.segment("orders", SegmentPolicy.of(100, 100, Duration.ofMillis(100)));
            orders.nextIds(50);
            clock.advance(Duration.ofMillis(1)); // 50,000 ids a second: 5,000 in the prefetch time
            scheduler.runDue();
            assertTrue(counter("orders") >= 5_050, "ids reserved ahead: " + counter("orders"));
            assertTrue(reserved.stream().allMatch(range -> range.size() == 100), "ranges " + reserved);
            long[] ahead = orders.nextIds(4_950); // maxWait is zero: none of them waits for the store
            assertEquals(5_000, ahead[ahead.length - 1]);
        }
    }

    @Test
    void aCleanCloseHandsTheTailBackAndTheNextRuntimeContinuesAtLastIdPlusOne() {
        long last;
        try (CosIdRuntime runtime = builder("a").start()) {
            long[] ids = issue(runtime.segment("orders"), 170); // a second range is prefetched at id 50
            last = ids[ids.length - 1];
            assertTrue(counter("orders") > last, "ranges reserved ahead of " + last);
        }
        assertEquals(170, last);
        assertEquals(170, counter("orders"));
        try (CosIdRuntime runtime = builder("b").start()) {
            assertEquals(171, runtime.segment("orders").nextId());
        }
        assertEquals(171, counter("orders"));
    }

    @Test
    void aRangeReservedByAnotherRuntimeAfterOursLeavesOurTailAsAGapNeverARepeat() {
        try (CosIdRuntime a = builder("a").start(); CosIdRuntime b = builder("b").start()) {
            SegmentId fromA = a.segment("orders");
            SegmentId fromB = b.segment("orders");
            assertEquals(1, fromA.nextId());
            assertEquals(101, fromB.nextId());
            a.close();
            assertEquals(200, counter("orders"), "a's tail 2..100 lies below b's range: a gap");
            b.close();
            assertEquals(101, counter("orders"));
        }
        try (CosIdRuntime c = builder("c").start()) {
            assertEquals(102, c.segment("orders").nextId());
        }
    }

    @Test
    void everyIdIsDistinctAndEachThreadsIdsIncreaseUnderConcurrency() throws Exception {
        int threads = 4;
        int perThread = 100_000;
        long[][] seen = new long[threads][perThread];
        try (Scheduler real = Scheduler.newSingleThread("segment-test");
             CosIdRuntime runtime = CosIdRuntime.builder().namespace("shop").store(memory).ownerKey("a")
                     .scheduler(real).segmentPolicy(SMALL).maxWait(Duration.ofSeconds(10)).start()) {
            SegmentId ids = runtime.segment("orders");
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                Thread worker = new Thread(() -> {
                    try {
                        go.await();
                        for (int i = 0; i < perThread; i += 10) {
                            seen[index][i] = ids.nextId();
                            long[] batch = ids.nextIds(9);
                            System.arraycopy(batch, 0, seen[index], i + 1, 9);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
                worker.start();
                workers.add(worker);
            }
            go.countDown();
            for (Thread worker : workers) {
                worker.join(TimeUnit.MINUTES.toMillis(1));
                assertFalse(worker.isAlive(), "a worker is still running");
            }
            assertEquals(List.of(), failures);
            runtime.close();
            int total = threads * perThread;
            BitSet all = new BitSet(total + 1);
            for (long[] ofThread : seen) {
                for (int i = 0; i < ofThread.length; i++) {
                    assertTrue(ofThread[i] >= 1 && ofThread[i] <= total, "id " + ofThread[i] + " outside 1.." + total);
                    assertFalse(all.get((int) ofThread[i]), "id " + ofThread[i] + " issued twice");
                    all.set((int) ofThread[i]);
                    if (i > 0) {
                        assertTrue(ofThread[i] > ofThread[i - 1], "thread ids went " + ofThread[i - 1] + " then "
                                + ofThread[i]);
                    }
                }
            }
            // single-id draws and batches waste nothing: the ids are exactly 1..total, and the tail went back
            assertEquals(total, all.cardinality());
            assertEquals(total, counter("orders"));
        }
    }

    @Test
    void aStoreThatDoesNotAnswerWithinMaxWaitFailsTheCallWithTheReason() {
        try (CosIdRuntime runtime = builder("a").maxWait(Duration.ofMillis(300)).start()) {
            SegmentId orders = runtime.segment("orders");
            orders.nextIds(100); // the first range, used up; the scheduler never runs: the store never answers
            long before = clock.monotonicNanos();
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, orders::nextId);
            assertEquals(IdUnavailableException.Reason.SEGMENT_PENDING, refused.reason());
            assertEquals(300, (clock.monotonicNanos() - before) / 1_000_000);
            assertTrue(refused.getMessage().contains("segment 'orders' of namespace 'shop' used up its ranges to 100"),
                    refused.getMessage());
            scheduler.runDue(); // the store answers at last
            assertEquals(101, orders.nextId());
        }
    }

    @Test
    void aSlowStoreHoldsCallersAtMostMaxWaitOnTheRealClock() throws Exception {
        CountDownLatch answer = new CountDownLatch(1);
        Clock system = Clock.system();
        try (Scheduler real = Scheduler.newSingleThread("segment-test");
             CosIdRuntime runtime = CosIdRuntime.builder().namespace("shop").store(store).ownerKey("a")
                     .scheduler(real).segmentPolicy(SegmentPolicy.of(100, 100, Duration.ofSeconds(1)))
                     .maxWait(Duration.ofMillis(200)).start()) {
            SegmentId orders = runtime.segment("orders");
            store.beforeReserve = () -> {
                try {
                    answer.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            orders.nextIds(100);
            long started = system.monotonicNanos();
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, orders::nextId);
            long waitedMillis = (system.monotonicNanos() - started) / 1_000_000;
            assertEquals(IdUnavailableException.Reason.SEGMENT_PENDING, refused.reason());
            assertTrue(waitedMillis >= 200 && waitedMillis < 5_000, "waited " + waitedMillis + " ms");
            store.beforeReserve = null;
            answer.countDown();
            RuntimeException late = null;
            long id = 0;
            // the store answers now: the next call gets the next range within its wait bound
            for (int attempt = 0; attempt < 50 && id == 0; attempt++) {
                try {
                    id = orders.nextId();
                } catch (IdUnavailableException e) {
                    late = e;
                }
            }
            assertEquals(101, id, "last refusal: " + late);
        }
    }

    @Test
    void aFailingStoreIsRetriedWithBackOffAndIdsContinue() {
        try (CosIdRuntime runtime = builder("a").maxWait(Duration.ofSeconds(5)).start()) {
            SegmentId orders = runtime.segment("orders");
            store.failEverything = true;
            orders.nextIds(60); // asks for the next range, which fails
            scheduler.runDue();
            store.failEverything = false;
            assertEquals(Duration.ofMillis(100), scheduler.nextDelay().orElseThrow());
            scheduler.runNext();
            assertEquals(61, orders.nextIds(40)[0]);
            assertEquals(101, orders.nextId());
        }
    }

    @Test
    void aStoreThatLostItsDataStopsTheGeneratorForGood() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentId orders = runtime.segment("orders");
            orders.nextIds(60);
            store.failWith = new StoreDataLostException("the namespace record of 'shop' vanished");
            scheduler.runDue();
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, orders::nextId);
            assertEquals(IdUnavailableException.Reason.CLOSED, refused.reason());
            assertTrue(refused.getMessage().contains("stopped for good: the store lost its data"), refused.getMessage());
            store.failWith = null;
            scheduler.runDue();
            assertThrows(IdUnavailableException.class, orders::nextId, "stays stopped after the store answers");
        }
        assertEquals(100, counter("orders"), "nothing was handed back by a stopped generator");
    }

    @Test
    void aStoreThatLostItsDataRefusesTheFirstRange() {
        try (CosIdRuntime runtime = builder("a").start()) {
            store.failWith = new StoreDataLostException("the namespace record of 'shop' vanished");
            assertThrows(StoreDataLostException.class, () -> runtime.segment("orders"));
            store.failWith = null;
        }
    }

    @Test
    void anUnreachableStoreAtTheFirstRangeFailsAfterTheAcquireTimeout() {
        try (CosIdRuntime runtime = builder("a").acquireTimeout(Duration.ofSeconds(2)).start()) {
            store.failEverything = true;
            long before = clock.monotonicNanos();
            assertThrows(LeaseStoreException.class, () -> runtime.segment("orders"));
            assertTrue(clock.monotonicNanos() - before >= 2_000_000_000L);
            store.failEverything = false;
        }
    }

    @Test
    void badRequestsAreRefusedWithTheFix() {
        try (CosIdRuntime runtime = builder("a").start()) {
            runtime.segment("orders");
            IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                    () -> runtime.segment("orders", SegmentPolicy.DEFAULT));
            assertTrue(other.getMessage().contains("segment 'orders' already exists with"), other.getMessage());
            assertThrows(IllegalArgumentException.class, () -> runtime.segment("orders").nextIds(0));
            runtime.close();
            assertThrows(IllegalStateException.class, () -> runtime.segment("invoices"));
        }
        IllegalArgumentException step = assertThrows(IllegalArgumentException.class,
                () -> SegmentPolicy.of(10, 5, Duration.ofSeconds(1)));
        assertEquals("the segment max step 5 lies outside the min step 10..1099511627776", step.getMessage());
        IllegalArgumentException prefetch = assertThrows(IllegalArgumentException.class,
                () -> SegmentPolicy.of(1, 5, Duration.ofMillis(1)));
        assertTrue(prefetch.getMessage().startsWith("segment prefetch of 1 ms is shorter"), prefetch.getMessage());
    }

    @Test
    void aLimitReservesExactlyTheIdsNeededAndLeavesNoTail() {
        try (CosIdRuntime runtime = builder("a").start()) {
            SegmentId orders = runtime.segment("orders", SMALL.withLimit(250));
            long[] ids = issue(orders, 250);
            assertEquals(250, ids[249]);
            assertEquals(250, counter("orders"), "no range reserved past the limit");
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, orders::nextId);
            assertTrue(refused.getMessage().contains("issued its limit of 250 ids"), refused.getMessage());
        }
        assertEquals(250, counter("orders"));
        assertThrows(IllegalArgumentException.class, () -> SMALL.withLimit(0));
    }

    @Test
    void aClosedGeneratorRefusesAndAStaticSlotHasNoSegments() throws Exception {
        CosIdRuntime runtime = builder("a").start();
        SegmentId orders = runtime.segment("orders");
        orders.nextId();
        runtime.close();
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, orders::nextId);
        assertEquals(IdUnavailableException.Reason.CLOSED, refused.reason());
        assertEquals(1, counter("orders"));
        try (CosIdRuntime fixed = CosIdRuntime.builder().namespace("shop").staticSlot(3).clock(clock)
                .scheduler(scheduler).start()) {
            IllegalStateException none = assertThrows(IllegalStateException.class, () -> fixed.segment("orders"));
            assertTrue(none.getMessage().contains("segment ids need a store"), none.getMessage());
        }
    }
}
