package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A holder whose store lost its data stops issuing at once and says why. */
class StoreDataLossTest {

    private static final long T0 = 1_800_000_000_000L;

    private final ManualClock nodeClock = new ManualClock(T0);
    private final ManualClock storeClock = new ManualClock(T0);
    private final InMemoryLeaseStore memory = new InMemoryLeaseStore(storeClock);
    private final FaultyStore store = new FaultyStore(memory);
    private final ManualScheduler scheduler = new ManualScheduler(nodeClock);
    private final RecordingListener listener = new RecordingListener();

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder()
                .namespace("orders")
                .store(store)
                .ownerKey("node-a")
                .clock(nodeClock)
                .scheduler(scheduler)
                .listener(listener)
                .maxWait(Duration.ZERO);
    }

    private void elapse(Duration extent) {
        nodeClock.advance(extent);
        storeClock.advance(extent);
    }

    @Test
    void aSlotRecordThatVanishedFailsTheNextIdAndTheNewWindowStartsPastEveryForgottenOne() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            SlotLease before = runtime.lease();
            // the store restarts empty; another runtime registers the namespace again
            InMemoryLeaseStore empty = new InMemoryLeaseStore(storeClock);
            empty.register("orders", new NamespaceRecord(1024, 1_000));
            store.swap(empty);
            elapse(Duration.ofSeconds(10));
            scheduler.runNext(); // the renewal finds no record
            SlotLostException refused = assertThrows(SlotLostException.class, ids::nextId);
            assertTrue(refused.getMessage().contains("no longer holds the record of slot 0: its data vanished"),
                    refused.getMessage());
            assertEquals(RuntimeStatus.State.LOST, runtime.status().state());
            scheduler.runNext(); // acquires again, with the cold-start guard
            SlotLease after = runtime.lease();
            assertEquals(0, after.slot());
            assertTrue(after.floor() >= before.ceiling(), "floor " + after.floor() + " below the forgotten ceiling "
                    + before.ceiling());
            assertEquals(storeClock.nowMillis() + 31_000, after.floor());
        }
    }

    @Test
    void aNamespaceThatVanishedIsRegisteredAgainAndTheSlotIsGuarded() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            store.swap(new InMemoryLeaseStore(storeClock));
            elapse(Duration.ofSeconds(10));
            scheduler.runNext();
            IdUnavailableException refused = assertThrows(SlotLostException.class, ids::nextId);
            assertTrue(refused.getMessage().contains("no longer holds namespace 'orders'"), refused.getMessage());
            scheduler.runNext();
            assertEquals(RuntimeStatus.State.BOUND, runtime.status().state());
            assertTrue(runtime.lease().floor() > T0 + 31_000);
        }
    }

    @Test
    void aRenewalAnsweredWithAnotherWindowIsTakenForARolledBackRecord() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            // the store is replaced by a copy in which the same owner holds slot 0 with fence 1 from another floor
            InMemoryLeaseStore copy = new InMemoryLeaseStore(storeClock);
            copy.register("orders", new NamespaceRecord(1024, 1_000));
            SlotLease old = runtime.lease();
            SlotLease forged = copy.acquire("orders", 0, old.owner(), new LeaseTerms(30_000, 1_000, true)).orElseThrow();
            assertEquals(old.fence(), forged.fence());
            assertTrue(forged.floor() != old.floor());
            store.swap(copy);
            elapse(Duration.ofSeconds(10));
            scheduler.runNext();
            SlotLostException refused = assertThrows(SlotLostException.class, ids::nextId);
            assertTrue(refused.getMessage().contains("replaced or rolled back"), refused.getMessage());
        }
    }

    @Test
    void aSlotTakenTheNormalWayIsALossWithoutTheGuard() {
        try (CosIdRuntime runtime = builder().bits(1).start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            elapse(Duration.ofSeconds(45)); // a pause past the expiry; someone else takes the slot
            memory.acquire("orders", 0, Owner.of("node-b"), new LeaseTerms(30_000, 1_000)).orElseThrow();
            scheduler.runNext();
            SlotLostException refused = assertThrows(SlotLostException.class, ids::nextId);
            assertFalse(refused.getMessage().contains("vanished"), refused.getMessage());
            assertEquals("", runtime.status().reason());
            scheduler.runNext();
            assertEquals(1, runtime.lease().slot());
            assertEquals(0, runtime.lease().floor(), "a never-used slot without the guard starts at floor 0");
        }
    }

    @Test
    void aStoreThatRefusesToGoOnStopsTheRuntimeForGoodWithOneClearReason() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            store.failWith = new StoreDataLostException("sqlite:/tmp/x.db was deleted while in use");
            elapse(Duration.ofSeconds(10));
            scheduler.runNext();
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertFalse(refused instanceof SlotLostException);
            assertEquals(IdUnavailableException.Reason.CLOSED, refused.reason());
            assertEquals("generator 'order': the runtime of namespace 'orders' stopped for good: "
                    + "sqlite:/tmp/x.db was deleted while in use", refused.getMessage());
            RuntimeStatus status = runtime.status();
            assertEquals(RuntimeStatus.State.FAILED, status.state());
            assertEquals(-1, status.nextStepAt());
            assertTrue(status.problem().contains("stopped for good"), status.problem());
            assertEquals(Optional.empty(), scheduler.nextDelay(), "the keeper stopped");
            assertTrue(listener.events.contains("renewal failed 1"), listener.events.toString());
        }
    }

    @Test
    void aWaitingRuntimeNoticesAReleasedSlotWithinAQuarterSecond() {
        try (CosIdRuntime holder = builder().bits(0).ownerKey("holder").start()) {
            int[] reads = {0};
            store.beforeRead = () -> {
                if (++reads[0] == 2) {
                    holder.close(); // released long before its expiry
                }
            };
            try (CosIdRuntime waiter = builder().bits(0).ownerKey("waiter").acquireTimeout(Duration.ofSeconds(30))
                    .start()) {
                assertEquals(0, waiter.lease().slot());
                long waited = waiter.status().lastAcquireMillis();
                assertTrue(waited <= 250, "noticed the free slot after " + waited + " ms");
            }
        }
    }

    @Test
    void aLostLeaseInAnExhaustedNamespaceIsRetriedEveryQuarterSecond() {
        try (CosIdRuntime runtime = builder().bits(0).start()) {
            elapse(Duration.ofSeconds(45));
            memory.acquire("orders", 0, Owner.of("node-b"), new LeaseTerms(30_000, 1_000)).orElseThrow();
            scheduler.runNext(); // lost
            for (int retry = 0; retry < 8; retry++) {
                scheduler.runNext(); // exhausted
                Duration delay = scheduler.nextDelay().orElseThrow();
                assertTrue(delay.toMillis() <= 250, "retry " + retry + " waits " + delay);
            }
            assertEquals(RuntimeStatus.State.LOST, runtime.status().state());
        }
    }
}
