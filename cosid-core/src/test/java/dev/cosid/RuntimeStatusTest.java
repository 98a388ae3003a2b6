package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a runtime reports about itself: generator counts, refusals by reason, and its status. */
class RuntimeStatusTest {

    private static final long T0 = 1_800_000_000_000L;

    private final ManualClock nodeClock = new ManualClock(T0);
    private final ManualClock storeClock = new ManualClock(T0);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(storeClock);
    private final ManualScheduler scheduler = new ManualScheduler(nodeClock);

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder().namespace("orders").store(store).ownerKey("node-a").clock(nodeClock)
                .scheduler(scheduler).maxWait(Duration.ZERO);
    }

    private void elapse(Duration extent) {
        nodeClock.advance(extent);
        storeClock.advance(extent);
    }

    @Test
    void theIssuedCountIsExactAcrossUnitsBatchesAndAUsedUpSequence() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            assertEquals(0, ids.stats().issued());
            assertEquals(-1, ids.stats().lastIssuedMillis());
            for (int i = 0; i < 10; i++) {
                ids.nextId();
            }
            assertEquals(10, ids.stats().issued());
            nodeClock.advance(Duration.ofMillis(1));
            ids.nextIds(4096); // uses up the unit's sequence, which carries into the slot bits of the word
            assertEquals(4106, ids.stats().issued());
            nodeClock.advance(Duration.ofMillis(1));
            ids.nextIds(904);
            assertEquals(5010, ids.stats().issued());
            nodeClock.advance(Duration.ofMillis(5));
            ids.nextId();
            assertEquals(5011, ids.stats().issued());
            assertEquals(T0 + 7, ids.stats().lastIssuedMillis());
            assertEquals(0, ids.stats().refusedTotal());
        }
    }

    @Test
    void theIssuedCountMatchesTheIdsThreadsTookOnTheRealClock() throws InterruptedException {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store(new InMemoryLeaseStore())
                .ownerKey("node-a").start()) {
            SnowflakeId ids = runtime.snowflake("order");
            int threads = 4;
            int each = 200_000;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread worker = new Thread(() -> {
                    for (int i = 0; i < each; i += 100) {
                        if (i % 200 == 0) {
                            ids.nextIds(100);
                        } else {
                            for (int k = 0; k < 100; k++) {
                                ids.nextId();
                            }
                        }
                    }
                });
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            assertEquals((long) threads * each, ids.stats().issued());
        }
    }

    @Test
    void refusalsAreCountedByReason() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            elapse(Duration.ofSeconds(45)); // past the ceiling, no renewal ran
            IdUnavailableException ceiling = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.CEILING, ceiling.reason());
            assertThrows(IdUnavailableException.class, ids::nextId);
            runtime.close();
            IdUnavailableException closed = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.CLOSED, closed.reason());
            GeneratorStats stats = ids.stats();
            assertEquals(2, stats.refused(IdUnavailableException.Reason.CEILING));
            assertEquals(1, stats.refused(IdUnavailableException.Reason.CLOSED));
            assertEquals(0, stats.refused(IdUnavailableException.Reason.FLOOR));
            assertEquals(3, stats.refusedTotal());
            assertEquals(1, stats.issued());
        }
    }

    @Test
    void aLostLeaseIsCountedAsSlotLostRefusalsAndInTheStatus() {
        try (CosIdRuntime runtime = builder().bits(0).start()) {
            SnowflakeId ids = runtime.snowflake("order");
            elapse(Duration.ofSeconds(40));
            store.acquire("orders", 0, Owner.of("node-b"), new LeaseTerms(600_000, 1_000)).orElseThrow();
            scheduler.runNext(); // the renewal finds the lease gone
            IdUnavailableException lost = assertThrows(SlotLostException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.SLOT_LOST, lost.reason());
            assertEquals(1, ids.stats().refused(IdUnavailableException.Reason.SLOT_LOST));
            RuntimeStatus status = runtime.status();
            assertEquals(RuntimeStatus.State.LOST, status.state());
            assertEquals(1, status.leasesLost());
            assertFalse(status.canIssue());
            assertTrue(status.problem().contains("was lost"), status.problem());
        }
    }

    @Test
    void theStatusShowsTheWindowTheNextRenewalTheCountersAndTheSkew() {
        storeClock.set(T0 - 700); // the node's clock is 700 ms ahead of the store's
        try (CosIdRuntime runtime = builder().start()) {
            RuntimeStatus status = runtime.status();
            assertEquals(RuntimeStatus.State.BOUND, status.state());
            assertEquals("orders", status.namespace());
            assertFalse(status.staticSlot());
            assertTrue(status.canIssue());
            assertEquals("", status.problem());
            assertEquals(T0 - 700 + 31_000 - T0, status.windowRemainingMillis());
            assertEquals(T0 + 10_000, status.nextStepAt());
            assertEquals(700, status.clockSkewMillis());
            assertEquals(0, status.renewals());

            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            status = runtime.status();
            assertEquals(1, status.renewals());
            assertEquals(T0 + 20_000, status.nextStepAt());

            elapse(Duration.ofSeconds(40)); // a pause: past the ceiling before the renewal runs
            status = runtime.status();
            assertFalse(status.canIssue());
            assertTrue(status.problem().contains("past the ceiling"), status.problem());
        }
    }

    @Test
    void aClosedRuntimeReportsClosedAndNoNextStep() {
        CosIdRuntime runtime = builder().start();
        runtime.close();
        RuntimeStatus status = runtime.status();
        assertEquals(RuntimeStatus.State.CLOSED, status.state());
        assertEquals(-1, status.nextStepAt());
        assertFalse(status.canIssue());
        assertTrue(status.problem().contains("closed"), status.problem());
    }

    @Test
    void theSlotTableAndTheGeneratorsAreListed() {
        try (CosIdRuntime runtime = builder().start(); CosIdRuntime other = builder().ownerKey("node-b").start()) {
            SnowflakeId order = runtime.snowflake("order");
            SnowflakeId batch = runtime.snowflake("batch", IdLayout.SECOND);
            assertEquals(List.of(order, batch), runtime.generators());
            assertEquals(List.of("order", "batch"), runtime.generators().stream().map(SnowflakeId::name).toList());
            assertEquals(2, runtime.slotTable().slots().size());
            assertEquals(other.owner(), runtime.slotTable().bySlot().get(1).owner());
            assertEquals(1024, runtime.slotLimit());
        }
    }

    @Test
    void everyListenerOfAllHearsEachEventEvenWhenOneThrows() {
        List<String> heard = new ArrayList<>();
        CosIdListener throwing = new CosIdListener() {
            @Override
            public void onSlotAcquired(SlotLease lease) {
                throw new IllegalStateException("boom");
            }
        };
        CosIdListener recording = new CosIdListener() {
            @Override
            public void onSlotAcquired(SlotLease lease) {
                heard.add("acquired " + lease.slot());
            }
        };
        CosIdListener timing = new CosIdListener() {
            @Override
            public void onSlotAcquired(SlotLease lease, Duration took) {
                heard.add("acquired " + lease.slot() + " in " + took.toMillis() + " ms");
            }

            @Override
            public void onGeneratorCreated(SnowflakeId generator) {
                heard.add("created " + generator.name());
            }
        };
        try (CosIdRuntime runtime = builder().listener(CosIdListener.all(throwing, recording, timing)).start()) {
            runtime.snowflake("order");
            runtime.snowflake("order");
            assertEquals(List.of("acquired 0", "acquired 0 in 0 ms", "created order"), heard);
        }
    }
}
