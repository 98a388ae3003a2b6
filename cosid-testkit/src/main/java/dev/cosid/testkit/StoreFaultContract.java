package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.servers.ControlledServer;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What every server store must survive, shown against a real server: a restart during a lease, a
 * pause past the ttl, a start-up crowd larger than the namespace, and a restart that lost the data
 * (with the cold-start guard).
 *
 * <p>A store's test extends this class, starts its server once, and supplies {@link #server()} and
 * {@link #storeUrl()}. The tests run on real time with short leases.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * class RedisFaultTest extends StoreFaultContract {
 *     static RedisServer redis;
 *     protected ServerProcess server() { return redis; }
 *     protected String storeUrl() { return redis.url(); }
 * }
 * }</pre>
 */
public abstract class StoreFaultContract {

    /** Returns the server under test, running. */
    protected abstract ControlledServer server();

    /** Returns the URL of a store on that server. */
    protected abstract String storeUrl();

    private static String namespace(String test) {
        return test + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private CosIdRuntime.Builder runtime(String namespace, Duration ttl, CosIdListener listener) {
        return CosIdRuntime.builder()
                .namespace(namespace)
                .store(storeUrl())
                .ttl(ttl)
                .tolerance(Duration.ofSeconds(1))
                .maxWait(Duration.ZERO)
                .listener(listener);
    }

    private static void assertDistinct(long[]... batches) {
        Set<Long> seen = new HashSet<>();
        long total = 0;
        for (long[] ids : batches) {
            for (long id : ids) {
                assertTrue(seen.add(id), "id " + id + " was issued twice");
            }
            total += ids.length;
        }
        assertEquals(total, seen.size());
    }

    /** Records renewals and failures of one runtime. */
    private static final class Events implements CosIdListener {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final AtomicLong failures = new AtomicLong();
        final AtomicLong renewals = new AtomicLong();

        final List<SlotLease> renewed = new CopyOnWriteArrayList<>();

        @Override
        public void onRenewed(SlotLease lease) {
            renewals.incrementAndGet();
            renewed.add(lease);
        }

        /** The highest ceiling a renewal of this very window (slot, fence and floor) was granted, or 0. */
        long highestCeiling(SlotLease window) {
            return renewed.stream().filter(lease -> lease.slot() == window.slot() && lease.fence() == window.fence()
                    && lease.floor() == window.floor()).mapToLong(SlotLease::ceiling).max().orElse(0);
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            failures.incrementAndGet();
            lines.add("renewal failed: " + cause.getMessage());
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            lines.add("lost " + lease);
        }
    }

    @Test
    void holdersKeepIssuingThroughAStoreRestartAndRenewOnceItIsBack() {
        String ns = namespace("restart");
        Events eventsA = new Events();
        Events eventsB = new Events();
        AtomicBoolean down = new AtomicBoolean();
        AtomicLong issuedWhileDown = new AtomicLong();
        try (CosIdRuntime a = runtime(ns, Duration.ofSeconds(6), eventsA).start();
             CosIdRuntime b = runtime(ns, Duration.ofSeconds(6), eventsB).start();
             IdPump pumpA = IdPump.start("a", a.snowflake("order"));
             IdPump pumpB = IdPump.start("b", b.snowflake("order"))) {
            SlotLease leaseA = a.lease();
            Await.until(() -> pumpA.issued() > 1_000 && pumpB.issued() > 1_000, Duration.ofSeconds(10), "ids");
            down.set(true);
            server().stop();
            long before = pumpA.issued() + pumpB.issued();
            // longer than the renewal interval (ttl/3), shorter than the ceiling's margin (2 ttl/3 + tolerance)
            Await.elapse(Duration.ofSeconds(3));
            issuedWhileDown.set(pumpA.issued() + pumpB.issued() - before);
            server().start();
            down.set(false);
            long renewedA = eventsA.renewals.get();
            long renewedB = eventsB.renewals.get();
            Await.until(() -> eventsA.renewals.get() > renewedA && eventsB.renewals.get() > renewedB,
                    Duration.ofSeconds(30), "renewals once the store is back; events " + eventsA.lines);
            long after = pumpA.issued();
            Await.until(() -> pumpA.issued() > after + 1_000, Duration.ofSeconds(10), "ids after the restart");
            assertEquals(leaseA.fence(), a.lease().fence(), "the lease survived the restart");
            assertEquals(leaseA.slot(), a.lease().slot());
            assertTrue(issuedWhileDown.get() > 0, "ids were issued while the store was down");
            pumpA.close();
            pumpB.close();
            assertDistinct(pumpA.ids(), pumpB.ids());
            assertEquals(1, slotsOf(pumpA.ids()).size());
        } finally {
            if (down.get()) {
                server().start();
            }
        }
    }

    @Test
    void generatorsRefuseAtTheCeilingWhileTheStoreIsPausedThenRecover() {
        String ns = namespace("pause");
        Events events = new Events();
        boolean paused = false;
        try (CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(2), events).start();
             IdPump pump = IdPump.start("paused", runtime.snowflake("order"))) {
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            server().pause();
            paused = true;
            Await.until(() -> pump.ceilingRefusals() > 0 || pump.lostRefusals() > 0, Duration.ofSeconds(15),
                    "a refusal at the ceiling while the store is paused");
            Await.elapse(Duration.ofSeconds(1));
            server().resume();
            paused = false;
            long refusedAt = pump.issued();
            Await.until(() -> pump.issued() > refusedAt + 1_000, Duration.ofSeconds(40),
                    "ids again after the store resumed; events " + events.lines);
            pump.close();
            assertDistinct(pump.ids());
            assertTrue(pump.ceilingRefusals() + pump.lostRefusals() > 0);
        } finally {
            if (paused) {
                server().resume();
            }
        }
    }

    @Test
    void thirtyTwoRuntimesStartingAtOnceGetDistinctSlotsAndTheNextIsExhausted() throws Exception {
        String ns = namespace("crowd");
        int crowd = 32;
        ExecutorService pool = Executors.newFixedThreadPool(crowd);
        List<CosIdRuntime> runtimes = new CopyOnWriteArrayList<>();
        List<LeaseStore> stores = new ArrayList<>();
        try {
            // each runtime has a connection of its own, as each process of a crowd would; they are opened first,
            // one after another, so that the race below is the slots' and not the connections' (a loaded
            // machine can take longer than a store's connect bound to open 32 connections at once)
            for (int i = 0; i < crowd; i++) {
                stores.add(LeaseStores.open(storeUrl()));
            }
            CountDownLatch go = new CountDownLatch(1);
            List<Future<CosIdRuntime>> started = new ArrayList<>();
            for (int i = 0; i < crowd; i++) {
                String key = "crowd-" + i;
                LeaseStore store = stores.get(i);
                started.add(pool.submit(() -> {
                    go.await();
                    CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(60), CosIdListener.NOOP).store(store)
                            .bits(5).ownerKey(key).acquireTimeout(Duration.ZERO).start();
                    runtimes.add(runtime);
                    return runtime;
                }));
            }
            go.countDown();
            Set<Integer> slots = new HashSet<>();
            long earliest = Long.MAX_VALUE;
            for (Future<CosIdRuntime> future : started) {
                SlotLease lease = future.get(60, TimeUnit.SECONDS).lease();
                assertTrue(slots.add(lease.slot()), "slot " + lease.slot() + " was handed out twice");
                earliest = Math.min(earliest, lease.expiresAt());
            }
            assertEquals(crowd, slots.size());
            SlotsExhaustedException exhausted = assertThrows(SlotsExhaustedException.class, () ->
                    runtime(ns, Duration.ofSeconds(60), CosIdListener.NOOP).bits(5).ownerKey("crowd-33")
                            .acquireTimeout(Duration.ZERO).start());
            assertEquals(earliest, exhausted.earliestExpiry());
            assertTrue(exhausted.getMessage().contains("32 slots"), exhausted.getMessage());
        } finally {
            runtimes.forEach(CosIdRuntime::close);
            stores.forEach(LeaseStore::close);
            pool.shutdownNow();
        }
    }

    @Test
    void aStoreRestartedEmptyHandsTheNextHolderAFloorPastEveryEarlierWindowWithTheColdStartGuard() {
        String ns = namespace("cold");
        SlotLease before;
        long lastBefore;
        // the first holder's keeper stands still (a scheduler that runs nothing): were it to renew meanwhile, it
        // would find its record gone and take the lowest free slot itself, ahead of the next holder, whenever the
        // empty restart outlasts its renewal interval on a loaded machine. What it does then is the subject of
        // aHolderWhoseStoreRestartedEmptyStopsIssuingAndNeverReusesItsForgottenWindow
        try (CosIdRuntime first = runtime(ns, Duration.ofSeconds(30), CosIdListener.NOOP).ownerKey("first")
                .scheduler(new ManualScheduler(new ManualClock(0))).start()) {
            lastBefore = first.snowflake("order").nextId();
            before = first.lease();
            server().restartEmpty();
            try (CosIdRuntime next = runtime(ns, Duration.ofSeconds(30), CosIdListener.NOOP).coldStartGuard(true)
                    .ownerKey("next").maxWait(Duration.ofSeconds(40)).start()) {
                SlotLease after = next.lease();
                assertEquals(before.slot(), after.slot(), "the lost record made the slot look free");
                assertTrue(after.floor() >= before.ceiling(), "floor " + after.floor()
                        + " must not be below the earlier holder's ceiling " + before.ceiling());
                assertNotNull(after);
            }
            try (CosIdRuntime unguarded = runtime(ns + "-unguarded", Duration.ofSeconds(30), CosIdListener.NOOP)
                    .ownerKey("plain").start()) {
                assertEquals(0, unguarded.lease().floor(), "without the guard a new record starts at floor 0");
            }
        }
        assertTrue(IdLayout.MILLISECOND.parse(lastBefore).timestampMillis() <= before.ceiling());
    }

    @Test
    void aHolderWhoseStoreRestartedEmptyStopsIssuingAndNeverReusesItsForgottenWindow() {
        String ns = namespace("vanished");
        Events events = new Events();
        boolean down = false;
        try (CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(3), events).ownerKey("holder").start();
             IdPump pump = IdPump.start("holder", runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            down = true;
            server().restartEmpty();
            down = false;
            // the next renewal (every second) finds the records gone: the generator refuses from then on
            Await.until(() -> runtime.status().state() != dev.cosid.RuntimeStatus.State.BOUND
                    || runtime.lease().fence() != before.fence() || runtime.lease().floor() != before.floor(),
                    Duration.ofSeconds(30), "the holder noticing the lost records; events " + events.lines);
            Await.until(() -> runtime.status().state() == dev.cosid.RuntimeStatus.State.FAILED
                    || (runtime.status().state() == dev.cosid.RuntimeStatus.State.BOUND
                    && runtime.lease().floor() >= before.ceiling()), Duration.ofSeconds(30),
                    "the holder failing for good or binding past its forgotten window; events " + events.lines);
            dev.cosid.RuntimeStatus status = runtime.status();
            // renewals before the data vanished raised the ceiling of the first window: ids up to it are its own
            long forgottenCeiling = Math.max(before.ceiling(), events.highestCeiling(before));
            if (status.state() == dev.cosid.RuntimeStatus.State.FAILED) {
                assertTrue(status.reason().contains("gone"), status.reason());
            } else {
                assertTrue(runtime.lease().floor() >= forgottenCeiling, "new floor " + runtime.lease().floor()
                        + " below the forgotten ceiling " + forgottenCeiling);
            }
            // stopped for good, or bound with a floor past the clock: either way the generator refuses now
            Await.until(() -> pump.lostRefusals() + pump.otherRefusals() > 0, Duration.ofSeconds(10),
                    "a refusal once the data was gone");
            pump.close();
            assertDistinct(pump.ids());
            for (long id : pump.ids()) {
                long millis = IdLayout.MILLISECOND.parse(id).timestampMillis();
                assertTrue(millis <= forgottenCeiling || millis > runtime.lease().floor(),
                        "id " + id + " at " + millis + " lies in no window the store granted");
            }
        } finally {
            if (down) {
                server().start();
            }
        }
    }

    // ---- segment counters ----

    private static final String SEGMENT = "invoice";
    private static final long SEGMENT_SIZE = 50;

    /** One process reserving ranges of one segment on a store of its own, retrying after each failure. */
    private static final class SegmentPump implements AutoCloseable {
        final List<SegmentRange> ranges = new CopyOnWriteArrayList<>();
        final AtomicLong failures = new AtomicLong();
        final AtomicReference<String> firstFailure = new AtomicReference<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        SegmentPump(String name, LeaseStore store, String ns) {
            thread = new Thread(() -> {
                while (running.get()) {
                    try {
                        ranges.add(store.reserveSegment(ns, SEGMENT, SEGMENT_SIZE));
                        // a steady rate, not a busy loop: the faults, not the CPU, are under test
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    } catch (LeaseStoreException e) {
                        failures.incrementAndGet();
                        firstFailure.compareAndSet(null, e.toString());
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                    }
                }
            }, "segment-pump-" + name);
            thread.setDaemon(true);
            thread.start();
        }

        int reserved() {
            return ranges.size();
        }

        @Override
        public void close() {
            running.set(false);
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertTrue(!thread.isAlive(), "the segment pump " + thread.getName() + " did not stop");
        }
    }

    /**
     * Checks what reservations through faults must show: no id in two ranges, each process's ranges
     * increasing, the counter past every range, only whole ranges wasted (a reservation applied whose answer
     * was lost), and the next reservation right after the counter.
     */
    private static void assertSegmentRangesNeverOverlap(LeaseStore store, String ns, String fault,
                                                        SegmentPump... pumps) {
        List<SegmentRange> all = new ArrayList<>();
        long failures = 0;
        for (SegmentPump pump : pumps) {
            SegmentRange previous = null;
            for (SegmentRange range : pump.ranges) {
                assertTrue(previous == null || range.first() > previous.last(),
                        "a process's ranges must increase: " + previous + " then " + range);
                previous = range;
            }
            all.addAll(pump.ranges);
            failures += pump.failures.get();
        }
        all.sort(Comparator.comparingLong(SegmentRange::first));
        for (int i = 1; i < all.size(); i++) {
            assertTrue(all.get(i).first() > all.get(i - 1).last(), all.get(i - 1) + " and " + all.get(i) + " overlap");
        }
        long counter = store.segments(ns).get(SEGMENT);
        long issued = all.stream().mapToLong(SegmentRange::size).sum();
        assertTrue(counter >= all.get(all.size() - 1).last(), "counter " + counter + " behind a range it handed out");
        long wasted = counter - issued;
        assertTrue(wasted >= 0 && wasted % SEGMENT_SIZE == 0, "the counter " + counter + " is not the " + issued
                + " ids handed out plus whole lost ranges");
        SegmentRange next = store.reserveSegment(ns, SEGMENT, SEGMENT_SIZE);
        assertEquals(counter + 1, next.first(), "the next range starts right after the counter");
        System.out.println("segment ranges through " + fault + ": " + all.size() + " ranges handed out, " + failures
                + " calls failed, " + wasted / SEGMENT_SIZE + " ranges wasted by answers lost after the write");
    }

    private String segmentNamespace(String test, LeaseStore... stores) {
        String ns = namespace(test);
        for (LeaseStore store : stores) {
            store.register(ns, new NamespaceRecord(16, 1_000));
        }
        return ns;
    }

    /** Starts the server once more after its start failed, keeping that failure the one the test reports. */
    private void startAgainAfterAFailedStart() {
        try {
            server().start();
        } catch (RuntimeException again) {
            System.out.println("the server did not start again after a failed start: " + again);
        }
    }

    private static String firstFailures(SegmentPump... pumps) {
        StringBuilder text = new StringBuilder();
        for (SegmentPump pump : pumps) {
            text.append(pump.failures.get()).append(" failures, the first ").append(pump.firstFailure.get())
                    .append("; ");
        }
        return text.toString();
    }

    @Test
    void segmentReservationsRunningThroughAStoreRestartNeverShareAnId() {
        boolean down = false;
        try (LeaseStore a = LeaseStores.open(storeUrl()); LeaseStore b = LeaseStores.open(storeUrl())) {
            String ns = segmentNamespace("segment-restart", a, b);
            SegmentPump pumpA = new SegmentPump("a", a, ns);
            SegmentPump pumpB = new SegmentPump("b", b, ns);
            try {
                // a few reservations each show both pumps run; a loaded machine's slow fsync must not fail the wait
                Await.until(() -> pumpA.reserved() > 5 && pumpB.reserved() > 5, Duration.ofSeconds(30),
                        () -> "reservations before the restart; " + firstFailures(pumpA, pumpB));
                server().stop();
                down = true;
                server().start();
                down = false;
                int beforeA = pumpA.reserved();
                int beforeB = pumpB.reserved();
                Await.until(() -> pumpA.reserved() > beforeA + 5 && pumpB.reserved() > beforeB + 5,
                        Duration.ofSeconds(30), () -> "reservations after the restart; " + firstFailures(pumpA, pumpB));
            } finally {
                if (down) {
                    startAgainAfterAFailedStart();
                }
                pumpA.close();
                pumpB.close();
            }
            assertSegmentRangesNeverOverlap(a, ns, "a store restart", pumpA, pumpB);
        }
    }

    @Test
    void segmentReservationsWaitOutAPausedStoreAndALostAnswerWastesItsRangeNeverReissuesIt() {
        boolean paused = false;
        try (LeaseStore a = LeaseStores.open(storeUrl()); LeaseStore b = LeaseStores.open(storeUrl())) {
            String ns = segmentNamespace("segment-pause", a, b);
            SegmentPump pumpA = new SegmentPump("a", a, ns);
            SegmentPump pumpB = new SegmentPump("b", b, ns);
            try {
                // a few reservations each show both pumps run; a loaded machine's slow fsync must not fail the wait
                Await.until(() -> pumpA.reserved() > 5 && pumpB.reserved() > 5, Duration.ofSeconds(30),
                        () -> "reservations before the pause; " + firstFailures(pumpA, pumpB));
                long failedBefore = pumpA.failures.get() + pumpB.failures.get();
                Clock clock = Clock.system();
                long pausedAt = clock.monotonicNanos();
                server().pause();
                paused = true;
                // calls sent to the frozen server time out while the server holds them; it applies them once thawed,
                // and their answers reach nobody. A store whose calls wait out the pause answers them instead
                Await.until(() -> pumpA.failures.get() + pumpB.failures.get() > failedBefore
                        || clock.monotonicNanos() - pausedAt > TimeUnit.SECONDS.toNanos(7), Duration.ofSeconds(10),
                        "a failed reservation or 7 s of pause");
                server().resume();
                paused = false;
                int beforeA = pumpA.reserved();
                int beforeB = pumpB.reserved();
                Await.until(() -> pumpA.reserved() > beforeA + 5 && pumpB.reserved() > beforeB + 5,
                        Duration.ofSeconds(40), () -> "reservations after the pause; " + firstFailures(pumpA, pumpB));
            } finally {
                if (paused) {
                    server().resume();
                }
                pumpA.close();
                pumpB.close();
            }
            assertSegmentRangesNeverOverlap(a, ns, "a paused store", pumpA, pumpB);
        }
    }

    private static Set<Integer> slotsOf(long[] ids) {
        Set<Integer> slots = new HashSet<>();
        for (long id : ids) {
            slots.add(IdLayout.MILLISECOND.parse(id).slot());
        }
        return slots;
    }
}
