package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The runtime and its keeper, driven step by step with manual clocks and a manual scheduler. */
class CosIdRuntimeTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final LeaseTerms LONG = new LeaseTerms(600_000, 1_000);

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

    /** Real time passes for the node and the store alike. */
    private void elapse(Duration extent) {
        nodeClock.advance(extent);
        storeClock.advance(extent);
    }

    private SlotRecord record(int slot) {
        return memory.read("orders").bySlot().get(slot);
    }

    @Test
    void startAcquiresTheLowestFreeSlotAndReportsIt() {
        try (CosIdRuntime runtime = builder().start()) {
            SlotLease lease = runtime.lease();
            assertEquals(0, lease.slot());
            assertEquals(0, lease.floor());
            assertEquals(T0 + 31_000, lease.ceiling());
            assertEquals(List.of("acquired 0 fence 1"), listener.events);
            assertEquals(0, IdLayout.MILLISECOND.parse(runtime.snowflake("order").nextId()).slot());
        }
    }

    @Test
    void renewsEveryThirdOfTheTtlAndRaisesTheCeiling() {
        try (CosIdRuntime runtime = builder().start()) {
            assertEquals(Optional.of(Duration.ofSeconds(10)), scheduler.nextDelay());
            elapse(Duration.ofSeconds(10));
            assertEquals(1, scheduler.runDue());
            assertEquals(T0 + 41_000, runtime.lease().ceiling());
            assertEquals(Optional.of(Duration.ofSeconds(10)), scheduler.nextDelay());
            assertEquals("renewed 0", listener.events.get(1));
        }
    }

    @Test
    void aFailedRenewalIsRetriedWithDoublingBackOffCappedAtASixthOfTheTtl() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            store.failRenewals = true;
            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            long[] expected = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
            for (long delay : expected) {
                assertEquals(Optional.of(Duration.ofMillis(delay)), scheduler.nextDelay());
                scheduler.runNext();
                storeClock.set(nodeClock.nowMillis());
            }
            assertTrue(listener.events.contains("renewal failed 9"), listener.events.toString());
            // until the ceiling the generator keeps issuing
            assertTrue(IdLayout.MILLISECOND.parse(ids.nextId()).timestampMillis() > T0 + 26_000);
            store.failRenewals = false;
            scheduler.runNext();
            assertEquals(storeClock.nowMillis() + 31_000, runtime.lease().ceiling());
            assertEquals(Optional.of(Duration.ofSeconds(10)), scheduler.nextDelay());
        }
    }

    @Test
    void aPauseBeyondTheCeilingRefusesUntilTheOverdueRenewalRuns() {
        try (CosIdRuntime runtime = builder().start()) {
            SnowflakeId ids = runtime.snowflake("order");
            ids.nextId();
            elapse(Duration.ofSeconds(45)); // a GC pause: no renewal ran, nobody took the slot
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertTrue(refused.getMessage().contains("held by the ceiling"), refused.getMessage());
            scheduler.runDue();
            assertEquals(T0 + 45_000, IdLayout.MILLISECOND.parse(ids.nextId()).timestampMillis());
        }
    }

    @Test
    void aLostLeaseFailsTheVeryNextIdThenIdsContinueOnTheNewSlot() {
        try (CosIdRuntime runtime = builder().bits(1).start()) {
            SnowflakeId ids = runtime.snowflake("order");
            long before = ids.nextId();
            SlotLease other = memory.acquire("orders", 1, Owner.of("node-c"), LONG).orElseThrow();
            elapse(Duration.ofSeconds(40)); // paused past expiry; node-b takes slot 0
            SlotLease taken = memory.acquire("orders", 0, Owner.of("node-b"), LONG).orElseThrow();
            assertEquals(2, taken.fence());

            scheduler.runNext(); // the renewal finds the lease gone
            assertTrue(listener.events.contains("lost 0 fence 1"), listener.events.toString());
            assertThrows(SlotLostException.class, ids::nextId);

            scheduler.runNext(); // the rebind finds every slot held
            assertThrows(SlotLostException.class, ids::nextId);
            assertTrue(listener.events.stream().anyMatch(e -> e.startsWith("exhausted")), listener.events.toString());

            assertTrue(memory.release(other, other.floor()));
            scheduler.runNext(); // the retry binds slot 1
            long after = ids.nextId();
            IdParts parts = IdLayout.MILLISECOND.parse(after);
            assertEquals(1, parts.slot());
            assertTrue(after > before);
            assertEquals(1, runtime.lease().slot());
            assertTrue(listener.events.contains("acquired 1 fence 3"), listener.events.toString());
        }
    }

    @Test
    void startWaitsForTheEarliestExpiryOfAnExhaustedNamespace() {
        InMemoryLeaseStore shared = new InMemoryLeaseStore(nodeClock);
        shared.register("orders", new dev.cosid.lease.NamespaceRecord(1, 1_000));
        SlotLease other = shared.acquire("orders", 0, Owner.of("node-b"), new LeaseTerms(5_000, 1_000)).orElseThrow();
        try (CosIdRuntime runtime = builder().store(shared).bits(0).acquireTimeout(Duration.ofSeconds(30)).start()) {
            assertEquals(other.ceiling(), runtime.lease().floor());
            assertTrue(nodeClock.nowMillis() >= other.expiresAt());
            assertTrue(listener.events.get(0).startsWith("exhausted until " + other.expiresAt()));
        }
    }

    @Test
    void startFailsPastTheAcquireTimeoutNamingNamespaceLimitAndExpiry() {
        memory.register("orders", new dev.cosid.lease.NamespaceRecord(1, 1_000));
        SlotLease other = memory.acquire("orders", 0, Owner.of("node-b"), LONG).orElseThrow();
        SlotsExhaustedException exhausted = assertThrows(SlotsExhaustedException.class,
                () -> builder().bits(0).acquireTimeout(Duration.ZERO).start());
        assertEquals(other.expiresAt(), exhausted.earliestExpiry());
        assertTrue(exhausted.getMessage().contains("namespace 'orders' has no free slot among its 1 slots"),
                exhausted.getMessage());
        assertTrue(exhausted.getMessage().contains(String.valueOf(other.expiresAt())));
        assertEquals(0, scheduler.pending());
    }

    @Test
    void aLiveLeaseOfTheSameOwnerKeyIsNeverTakenOver() {
        try (CosIdRuntime first = builder().start(); CosIdRuntime second = builder().start()) {
            assertEquals(0, first.lease().slot());
            assertEquals(1, second.lease().slot());
            assertTrue(listener.events.contains("duplicate node-a on 0"), listener.events.toString());
            assertEquals(first.owner(), record(0).owner());
        }
    }

    @Test
    void aNamespaceWithOtherBitsOrToleranceIsRefusedNamingBothValues() {
        try (CosIdRuntime first = builder().start()) {
            NamespaceMismatchException bits = assertThrows(NamespaceMismatchException.class,
                    () -> builder().bits(5).start());
            assertEquals("namespace 'orders' holds 1024 slots and tolerance 1000 ms; this runtime asks for "
                    + "32 slots and tolerance 1000 ms (bits 5)", bits.getMessage());
            NamespaceMismatchException tolerance = assertThrows(NamespaceMismatchException.class,
                    () -> builder().tolerance(Duration.ofSeconds(2)).start());
            assertTrue(tolerance.getMessage().contains("tolerance 2000 ms"), tolerance.getMessage());
            assertEquals(1, memory.read("orders").slots().size());
        }
    }

    @Test
    void aClockSkewBeyondHalfTheToleranceIsReported() {
        nodeClock.set(T0 + 2_000);
        try (CosIdRuntime runtime = builder().start()) {
            assertTrue(listener.events.contains("skew 2000"), listener.events.toString());
        }
        listener.events.clear();
        nodeClock.set(T0 + 400);
        try (CosIdRuntime runtime = builder().namespace("quiet").start()) {
            assertTrue(listener.events.stream().noneMatch(e -> e.startsWith("skew")), listener.events.toString());
        }
    }

    @Test
    void closeReleasesWithTheExactLastIssuedMillisecond() {
        CosIdRuntime runtime = builder().start();
        SnowflakeId ids = runtime.snowflake("order");
        SnowflakeId batches = runtime.snowflake("batch", IdLayout.SECOND);
        ids.nextId();
        nodeClock.advanceMillis(5);
        long last = ids.nextId();
        runtime.close();
        SlotRecord released = record(0);
        assertNull(released.owner());
        assertEquals(IdLayout.MILLISECOND.parse(last).timestampMillis(), released.nextFloor());
        assertEquals(T0 + 5, released.nextFloor());
        assertEquals(0, scheduler.pending(), "no renewal is left scheduled");
        assertThrows(IdUnavailableException.class, ids::nextId);
        assertThrows(IdUnavailableException.class, batches::nextId);
        runtime.close();
        assertEquals(2, record(0).fence(), "close is idempotent");

        try (CosIdRuntime next = builder().ownerKey("node-b").maxWait(Duration.ofSeconds(1)).start()) {
            assertEquals(T0 + 5, next.lease().floor());
            assertEquals(T0 + 6, IdLayout.MILLISECOND.parse(next.snowflake("order").nextId()).timestampMillis());
        }
    }

    @Test
    void aThrowingListenerNeverStopsTheKeeper() {
        CosIdListener throwing = new CosIdListener() {
            @Override
            public void onRenewed(SlotLease lease) {
                throw new IllegalStateException("listener bug");
            }
        };
        try (CosIdRuntime runtime = builder().listener(throwing).start()) {
            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            assertEquals(T0 + 41_000, runtime.lease().ceiling());
            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            assertEquals(T0 + 51_000, runtime.lease().ceiling());
        }
    }

    @Test
    void theSlotBitsOfALayoutMustHoldTheNamespaceBits() {
        try (CosIdRuntime runtime = builder().start()) {
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> runtime.snowflake("js", IdLayout.SAFE_JS_MILLISECOND));
            assertEquals("bits 10 exceed the layout's slot bits 3", refused.getMessage());
        }
    }

    @Test
    void oneNameIsOneGenerator() {
        try (CosIdRuntime runtime = builder().start()) {
            assertSame(runtime.snowflake("order"), runtime.snowflake("order"));
            assertThrows(IllegalArgumentException.class, () -> runtime.snowflake("order", IdLayout.SECOND));
        }
    }

    @Test
    void badSettingsAreRefusedBeforeAnyStoreCall() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder().namespace("a b").start())
                .getMessage().contains("may only contain"));
        assertThrows(IllegalArgumentException.class, () -> builder().namespace("").start());
        assertThrows(IllegalArgumentException.class, () -> builder().namespace("n".repeat(65)).start());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder().ttl(Duration.ofMillis(2)).start())
                .getMessage().contains("ttl of 2 ms"));
        assertThrows(IllegalArgumentException.class, () -> builder().tolerance(Duration.ofMillis(-1)).start());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder().bits(17).start())
                .getMessage().contains("bits 17"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> builder().bits(2).preferredSlot(4).start())
                .getMessage().contains("slot 4 is outside 0..3"));
        assertThrows(IllegalArgumentException.class, () -> builder().maxWait(Duration.ofMillis(-1)).start());
        assertThrows(IllegalArgumentException.class, () -> builder().ownerKey(" ").start());
        assertEquals(0, store.calls.get());
    }

    @Test
    void aFreeSlotLastHeldByTheSameKeyIsPreferred() {
        CosIdRuntime other = builder().ownerKey("node-x").start();
        CosIdRuntime mine = builder().start();
        assertEquals(1, mine.lease().slot());
        mine.close();
        other.close();
        try (CosIdRuntime again = builder().start()) {
            assertEquals(1, again.lease().slot(), "sticky: the slot node-a held last");
        }
    }

    @Test
    void aFreePreferredSlotIsTaken() {
        try (CosIdRuntime runtime = builder().preferredSlot(3).start()) {
            assertEquals(3, runtime.lease().slot());
        }
    }

    @Test
    void aRuntimeThatCannotReachItsStoreFailsToStart() {
        store.failEverything = true;
        assertThrows(dev.cosid.lease.LeaseStoreException.class, () -> builder().start());
        assertFalse(scheduler.pending() > 0);
    }

    @Test
    void anIdSpaceKeepsTheLayoutItWasFirstCreatedWithAcrossRuntimes() {
        try (CosIdRuntime first = builder().start()) {
            first.snowflake("order", IdLayout.MILLISECOND).nextId();
        }
        try (CosIdRuntime second = builder().ownerKey("node-b").start()) {
            NamespaceMismatchException refused = assertThrows(NamespaceMismatchException.class,
                    () -> second.snowflake("order", IdLayout.SECOND));
            assertTrue(refused.getMessage().contains("this generator asks for SECOND"), refused.getMessage());
            assertTrue(refused instanceof IllegalArgumentException, "bad input: exit 2 on the command line");
            // another name is another id space, free to use another layout
            assertEquals(IdLayout.SECOND, second.snowflake("batch", IdLayout.SECOND).layout());
            assertEquals(IdLayout.MILLISECOND, second.snowflake("order").layout());
        }
    }

    @Test
    void idsOfTwoLayoutsInOneIdSpaceCanBeEqualWhichIsWhyTheLayoutIsKept() {
        // a SECOND id at unit u, slot 0, sequence s is the MILLISECOND id at unit 1024 u, slot s >> 12
        long unit = 220_000_000L;
        long secondId = IdLayout.SECOND.compose(unit, 0, (5L << 12) | 7);
        long millisecondId = IdLayout.MILLISECOND.compose(unit << 10, 5, 7);
        assertEquals(secondId, millisecondId);
    }

    @Test
    void aStoreThatKeepsNoLayoutsStillCreatesGenerators() {
        dev.cosid.lease.LeaseStore plain = new dev.cosid.lease.LeaseStore() {
            @Override public dev.cosid.lease.NamespaceRecord register(String ns, dev.cosid.lease.NamespaceRecord p) {
                return store.register(ns, p);
            }
            @Override public Optional<dev.cosid.lease.NamespaceRecord> namespace(String ns) {
                return store.namespace(ns);
            }
            @Override public dev.cosid.lease.SlotTable read(String ns) {
                return store.read(ns);
            }
            @Override public Optional<SlotLease> acquire(String ns, int slot, Owner owner, LeaseTerms terms) {
                return store.acquire(ns, slot, owner, terms);
            }
            @Override public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
                return store.renew(lease, terms);
            }
            @Override public boolean release(SlotLease lease, long lastIssued) {
                return store.release(lease, lastIssued);
            }
            @Override public String describe() {
                return "plain";
            }
            @Override public void close() {
            }
        };
        try (CosIdRuntime runtime = builder().store(plain).start()) {
            assertEquals(0, IdLayout.SECOND.parse(runtime.snowflake("order", IdLayout.SECOND).nextId()).slot());
        }
    }

    @Test
    void aGeneratorCreatedWhileTheStoreIsBrieflyDownWaitsForItLikeStartUp() {
        try (CosIdRuntime runtime = builder().acquireTimeout(Duration.ofSeconds(5)).start()) {
            store.failLayouts.set(3);
            long before = nodeClock.monotonicNanos();
            SnowflakeId ids = runtime.snowflake("order");
            assertEquals(Duration.ofMillis(100 + 200 + 400), Duration.ofNanos(nodeClock.monotonicNanos() - before));
            assertEquals(0, IdLayout.MILLISECOND.parse(ids.nextId()).slot());
            store.failLayouts.set(1_000);
            dev.cosid.lease.LeaseStoreException down = assertThrows(dev.cosid.lease.LeaseStoreException.class,
                    () -> runtime.snowflake("batch"));
            assertTrue(down.getMessage().contains("registerLayout"), down.getMessage());
            assertEquals(List.of(ids), runtime.generators(), "no generator without its layout on record");
        }
    }

    @Test
    void aRenewalThatLeavesTheCeilingWhereItWasKeepsTheLease() {
        // the store's clock stands still: the renewal answers the same expiry and ceiling, which is no rollback
        try (CosIdRuntime runtime = builder().start()) {
            SlotLease first = runtime.lease();
            scheduler.runNext();
            assertEquals(first.ceiling(), runtime.lease().ceiling());
            assertEquals(first.fence(), runtime.lease().fence());
            assertTrue(listener.events.stream().noneMatch(e -> e.startsWith("lost")), listener.events.toString());
            runtime.snowflake("order").nextId();
        }
    }

    @Test
    void aClockSkewThatAppearsAfterTheStartIsReportedAtTheNextRenewal() {
        try (CosIdRuntime runtime = builder().start()) {
            assertTrue(listener.events.stream().noneMatch(e -> e.startsWith("skew")), listener.events.toString());
            nodeClock.set(T0 + 3_000);
            scheduler.runNext();
            assertTrue(listener.events.stream().anyMatch(e -> e.startsWith("skew")), listener.events.toString());
        }
    }

    @Test
    void aSkewOfExactlyHalfTheToleranceIsNotReported() {
        nodeClock.set(T0 + 500); // the default tolerance is 1 s
        try (CosIdRuntime runtime = builder().start()) {
            assertTrue(listener.events.stream().noneMatch(e -> e.startsWith("skew")), listener.events.toString());
        }
    }

    @Test
    void aHolderThatIssuedUpToItsCeilingReleasesItsSlot() {
        CosIdRuntime runtime = builder().start();
        SnowflakeId ids = runtime.snowflake("order");
        long ceiling = runtime.lease().ceiling();
        nodeClock.set(ceiling);
        assertEquals(ceiling, IdLayout.MILLISECOND.parse(ids.nextId()).timestampMillis());
        runtime.close();
        assertNull(record(0).owner(), "released, not left to expire");
        assertEquals(ceiling, record(0).nextFloor());
    }

    /** The slot a runtime takes after losing the race for slot 0 of eight: the free ones, rotated by its key. */
    private int slotAfterALostRace(String key) {
        InMemoryLeaseStore fresh = new InMemoryLeaseStore(storeClock);
        store.swap(fresh);
        boolean[] intruded = new boolean[1];
        store.beforeAcquire = () -> {
            if (!intruded[0]) {
                intruded[0] = true; // another runtime takes slot 0 between this one's read and its acquire
                fresh.acquire("orders", 0, Owner.of("intruder"), LONG);
            }
        };
        try (CosIdRuntime runtime = builder().namespace("orders").ownerKey(key).bits(3).start()) {
            return runtime.lease().slot();
        } finally {
            store.beforeAcquire = null;
        }
    }

    @Test
    void runtimesThatLoseTheRaceForTheLowestSlotSpreadOverTheFreeOnesByTheirKey() {
        java.util.Set<Integer> slots = new java.util.HashSet<>();
        for (String key : List.of("node-a", "node-b", "node-c", "node-d", "node-e")) {
            int slot = slotAfterALostRace(key);
            // the seven free slots after the lost one, rotated to start where the key points
            assertEquals(1 + Math.floorMod(key.hashCode() * 31 + 1, 7), slot, key);
            slots.add(slot);
        }
        assertTrue(slots.size() > 1, "keys spread: " + slots);
    }
}
