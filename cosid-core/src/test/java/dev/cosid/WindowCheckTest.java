package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The generator's window check, against hand-made windows and a manual clock. */
class WindowCheckTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long SECOND = 1_000_000_000L;

    private final ManualClock clock = new ManualClock(T0);
    /** A keeper whose binding the test sets by hand. */
    private static final class HandKeeper extends SlotKeeper {
        HandKeeper() {
            super(null, null);
        }

        void set(Binding next) {
            binding = next;
        }

        Binding get() {
            return binding;
        }

        @Override
        void start(Duration acquireTimeout) {
        }

        @Override
        void step() {
        }

        @Override
        void giveBack(SlotLease lease, long lastIssuedMillis) {
        }

        @Override
        dev.cosid.lease.LayoutRecord registerLayout(String name, dev.cosid.lease.LayoutRecord proposed) {
            return proposed;
        }
    }

    private final HandKeeper binding = new HandKeeper();

    private void bind(int slot, long floor, long ceiling) {
        binding.set(new Binding(new SlotLease("ns", slot, Owner.of("me"), 1, ceiling - 1_000, floor, ceiling, T0),
                Binding.State.BOUND));
    }

    private LeasedSnowflake generator(IdLayout layout, long maxWaitNanos) {
        return new LeasedSnowflake("test", layout, binding, clock, maxWaitNanos);
    }

    @Test
    void issuesIncreasingIdsOnTheBoundSlotInsideTheWindow() {
        bind(7, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        long previous = -1;
        for (int i = 0; i < 10_000; i++) {
            long id = ids.nextId();
            IdParts parts = IdLayout.MILLISECOND.parse(id);
            assertEquals(7, parts.slot());
            assertTrue(parts.timestampMillis() > T0 - 1 && parts.timestampMillis() <= T0 + 31_000);
            assertTrue(id > previous);
            previous = id;
            if (i % 1000 == 999) {
                clock.advanceMillis(1);
            }
        }
    }

    @Test
    void aClockPastTheCeilingRefusesNamingTheCeilingThenResumesAfterARenewal() {
        bind(1, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        ids.nextId();
        clock.advance(Duration.ofSeconds(45)); // a pause past the ceiling
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("held by the ceiling"), refused.getMessage());
        assertTrue(refused.getMessage().contains(String.valueOf(T0 + 31_000)), refused.getMessage());
        bind(1, T0 - 1, T0 + 76_000); // the renewal raised the ceiling
        long id = ids.nextId();
        assertEquals(T0 + 45_000, IdLayout.MILLISECOND.parse(id).timestampMillis());
    }

    @Test
    void theLastMillisecondOfTheWindowIsIssuedAndTheNextIsNot() {
        bind(0, T0 - 1, T0);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        assertEquals(T0, IdLayout.MILLISECOND.parse(ids.nextId()).timestampMillis());
        clock.advanceMillis(1);
        assertThrows(IdUnavailableException.class, ids::nextId);
    }

    @Test
    void aHolderWhoseClockIsBehindTheFloorWaitsUntilItPasses() {
        bind(2, T0 + 3_000, T0 + 40_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 10 * SECOND);
        long id = ids.nextId();
        assertEquals(T0 + 3_001, IdLayout.MILLISECOND.parse(id).timestampMillis());
        assertTrue(clock.nowMillis() >= T0 + 3_001, "the generator waited on its clock");
    }

    @Test
    void aHolderBehindTheFloorGivesUpAfterMaxWaitNamingTheFloor() {
        bind(2, T0 + 3_000, T0 + 40_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, SECOND);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("held by the floor"), refused.getMessage());
        assertTrue(refused.getMessage().contains("floor " + (T0 + 3_000)), refused.getMessage());
        assertTrue(clock.nowMillis() - T0 >= 1_000 && clock.nowMillis() - T0 < 1_100);
    }

    @Test
    void aClockBeforeTheLayoutsEpochIsNamedAsSuchNotAsTheFloor() {
        long beforeEpoch = IdLayout.COSID_EPOCH_MILLIS - 86_400_000L; // the host believes it is 2019-12-23
        clock.set(beforeEpoch);
        bind(3, 0, beforeEpoch + 31_000);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class,
                () -> generator(IdLayout.MILLISECOND, 0).nextId());
        assertEquals(IdUnavailableException.Reason.CLOCK_OUT_OF_RANGE, refused.reason());
        assertTrue(refused.getMessage().contains("the clock at " + beforeEpoch + " ms (2019-12-23T16:00:00Z) is "
                + "before the epoch 1577203200000 ms (2019-12-24T16:00:00Z)"), refused.getMessage());
        assertFalse(refused.getMessage().contains("floor 0 ms"), refused.getMessage());
    }

    @Test
    void aClockPastTheLayoutsLastUnitIsNamedAsSuchNotAsTheCeiling() {
        IdLayout small = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1000, 20, 10, 12); // ends after 2^20 s, ~12 days
        long pastEnd = IdLayout.COSID_EPOCH_MILLIS + (1L << 20) * 1000 + 5_000;
        clock.set(pastEnd);
        bind(3, pastEnd - 1_000, pastEnd + 31_000);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class,
                () -> generator(small, 0).nextId());
        assertEquals(IdUnavailableException.Reason.CLOCK_OUT_OF_RANGE, refused.reason());
        assertTrue(refused.getMessage().contains("is past the last unit of the layout"), refused.getMessage());
        assertFalse(refused.getMessage().contains("held by the ceiling"), refused.getMessage());
    }

    @Test
    void aSecondUnitNeverStraddlesTheFloor() {
        long epoch = IdLayout.COSID_EPOCH_MILLIS;
        long midSecond = epoch + 1_000_000_500L; // the window opens half-way through a second
        clock.set(midSecond + 100);
        bind(0, midSecond, midSecond + 10_000);
        LeasedSnowflake ids = generator(IdLayout.SECOND, 2 * SECOND);
        long id = ids.nextId();
        long start = IdLayout.SECOND.parse(id).timestampMillis();
        assertEquals(epoch + 1_000_001_000L, start, "the first whole second after the floor");
        assertTrue(start > midSecond);
    }

    @Test
    void aSecondUnitNeverStraddlesTheCeiling() {
        long epoch = IdLayout.COSID_EPOCH_MILLIS;
        long second = epoch + 2_000_000_000L;
        clock.set(second + 200);
        bind(0, second - 5_000, second + 500); // the ceiling falls half-way through this second
        LeasedSnowflake ids = generator(IdLayout.SECOND, 0);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("held by the ceiling"), refused.getMessage());
        bind(0, second - 5_000, second + 999); // now the whole second fits
        assertEquals(second, IdLayout.SECOND.parse(ids.nextId()).timestampMillis());
    }

    @Test
    void aUsedUpSequenceWaitsForTheNextUnit() {
        IdLayout tiny = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 10, 2);
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, SECOND);
        long[] four = ids.nextIds(4);
        assertEquals(T0, tiny.parse(four[3]).timestampMillis());
        assertEquals(3, tiny.parse(four[3]).sequence());
        long fifth = ids.nextId();
        assertEquals(T0 + 1, tiny.parse(fifth).timestampMillis());
        assertEquals(0, tiny.parse(fifth).sequence());
    }

    @Test
    void aUsedUpSequenceWithoutWaitNamesTheSequence() {
        IdLayout tiny = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 10, 1);
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        ids.nextIds(2);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("held by the sequence"), refused.getMessage());
    }

    @Test
    void aClockThatStepsBackContinuesTheLastUnitThenWaitsNamingTheClock() {
        IdLayout tiny = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 10, 2);
        bind(0, T0 - 10_000, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        long first = ids.nextId();
        clock.set(T0 - 5_000);
        long second = ids.nextId();
        assertEquals(T0, tiny.parse(second).timestampMillis(), "the last unit continues");
        assertTrue(second > first);
        ids.nextIds(2);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("held by the clock behind last issued"), refused.getMessage());
    }

    @Test
    void batchesSpanUnitsAndStayInsideTheWindow() {
        IdLayout tiny = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 10, 4);
        bind(3, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, SECOND);
        long[] batch = ids.nextIds(40);
        assertEquals(40, batch.length);
        for (int i = 1; i < batch.length; i++) {
            assertTrue(batch[i] > batch[i - 1]);
        }
        assertEquals(T0 + 2, tiny.parse(batch[39]).timestampMillis());
        assertThrows(IllegalArgumentException.class, () -> ids.nextIds(0));
    }

    @Test
    void aNewSlotInTheSameUnitStartsAtALaterUnitSoIdsKeepIncreasing() {
        bind(9, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, SECOND);
        long onNine = ids.nextId();
        bind(2, T0 - 1, T0 + 31_000);
        long onTwo = ids.nextId();
        assertEquals(2, IdLayout.MILLISECOND.parse(onTwo).slot());
        assertTrue(onTwo > onNine);
        assertEquals(T0 + 1, IdLayout.MILLISECOND.parse(onTwo).timestampMillis());
    }

    @Test
    void aUsedUpSequenceIsNotCarriedIntoTheNextSlot() {
        // with one sequence bit, lastId + 1 after a used-up unit on slot 0 reads as (same unit, slot 1, 0)
        IdLayout tiny = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 10, 1);
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        long last = ids.nextIds(2)[1];
        bind(1, T0 - 1, T0 + 31_000);
        for (int call = 0; call < 2; call++) {
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertTrue(refused.getMessage().contains("held by the sequence"), refused.getMessage());
        }
        clock.advance(Duration.ofMillis(1));
        long onOne = ids.nextId();
        assertTrue(onOne > last);
        assertEquals(1, tiny.parse(onOne).slot());
        assertEquals(T0 + 1, tiny.parse(onOne).timestampMillis(), "a new slot starts at a later unit");
    }

    @Test
    void closingIsAtomicWithIssuingAndReportsTheExactLastMillisecond() {
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.SECOND, 0);
        clock.set(IdLayout.SECOND.startOf(IdLayout.SECOND.unitOf(T0)) + 10);
        long id = ids.nextId();
        long last = ids.close();
        assertEquals(IdLayout.SECOND.parse(id).timestampMillis() + 999, last, "end of the last second issued");
        assertEquals(last, ids.close(), "close is idempotent");
        IdUnavailableException closed = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(closed.getMessage().contains("closed"));
    }

    @Test
    void aGeneratorThatIssuedNothingReportsTheFloor() {
        bind(0, T0 - 1, T0 + 31_000);
        assertEquals(T0 - 1, generator(IdLayout.MILLISECOND, 0).close());
    }

    @Test
    void aLostBindingFailsFastWithSlotLost() {
        bind(4, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 10 * SECOND);
        ids.nextId();
        binding.set(new Binding(binding.get().lease, Binding.State.LOST));
        long before = clock.monotonicNanos();
        SlotLostException lost = assertThrows(SlotLostException.class, ids::nextId);
        assertEquals(before, clock.monotonicNanos(), "no waiting");
        assertTrue(lost.getMessage().contains("slot 4"), lost.getMessage());
    }

    @Test
    void threadsRacingNeverShareAnIdAndCloseCountsEveryIssuedId() throws Exception {
        Clock system = Clock.system();
        long now = system.nowMillis();
        binding.set(new Binding(new SlotLease("ns", 1, Owner.of("me"), 1, now + 60_000, now - 1, now + 61_000, now),
                Binding.State.BOUND));
        LeasedSnowflake ids = new LeasedSnowflake("race", IdLayout.MILLISECOND, binding, system, 5 * SECOND);
        int threads = 4;
        int each = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Future<?>[] results = new Future<?>[threads];
            long[][] issued = new long[threads][];
            for (int t = 0; t < threads; t++) {
                int index = t;
                results[t] = pool.submit(() -> {
                    long[] mine = new long[each];
                    for (int i = 0; i < each; i++) {
                        mine[i] = ids.nextId();
                    }
                    issued[index] = mine;
                });
            }
            for (Future<?> result : results) {
                result.get(60, TimeUnit.SECONDS);
            }
            Set<Long> all = new HashSet<>();
            long max = 0;
            for (long[] mine : issued) {
                for (int i = 0; i < mine.length; i++) {
                    assertTrue(all.add(mine[i]), "duplicate id " + mine[i]);
                    assertTrue(i == 0 || mine[i] > mine[i - 1], "ids of one thread increase");
                    max = Math.max(max, mine[i]);
                }
            }
            assertEquals(threads * each, all.size());
            assertEquals(IdLayout.MILLISECOND.parse(max).timestampMillis(), ids.close());
        } finally {
            pool.shutdownNow();
        }
    }

    private LeasedSnowflake generator(IdLayout layout, long maxWaitNanos, long leadMillis) {
        return new LeasedSnowflake("test", layout, binding, clock, maxWaitNanos, leadMillis);
    }

    @Test
    void aUnitThatEndsPastTheCeilingIsRefusedOnTheFastPathAndTheSlowOne() {
        IdLayout twoMillis = new IdLayout(T0 - 2_000, 2, 41, 10, 12);
        bind(5, T0 - 1, T0 + 2); // units T0..T0+1 fit; T0+2..T0+3 ends past the ceiling
        LeasedSnowflake ids = generator(twoMillis, 0);
        assertEquals(T0, twoMillis.parse(ids.nextId()).timestampMillis());
        clock.advanceMillis(2); // the window is cached: the fast path is tried first
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertEquals(IdUnavailableException.Reason.CEILING, refused.reason());
        clock.advanceMillis(2);
        assertEquals(IdUnavailableException.Reason.CEILING,
                assertThrows(IdUnavailableException.class, ids::nextId).reason(), "nor a unit after it");
    }

    @Test
    void aWindowThatShrinksBelowTheLastUnitIssuedIsStillCheckedOnTheFastPath() {
        // a store never lowers a slot's ceiling; the generator checks every id all the same
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(3, T0 - 1, T0 + 10);
        LeasedSnowflake ids = generator(tiny, 0, 5);
        ids.nextIds(6); // unit T0 used up, then two ids of unit T0 + 1, ahead of the clock within the lead
        bind(3, T0 - 1, T0);
        for (int call = 0; call < 2; call++) { // the first caches the new window, the second takes the fast path
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.CEILING, refused.reason());
        }
        clock.advanceMillis(1); // the clock reaches the unit of the last id, one past the shrunk window
        for (int call = 0; call < 2; call++) {
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.CEILING, refused.reason());
        }
    }

    @Test
    void aFloorWithinTheLeadIsIssuedFromItsFirstUnitEachIdOnce() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(1, T0 + 2, T0 + 20); // the first unit, T0 + 3, lies exactly at the lead's end
        LeasedSnowflake ids = generator(tiny, 0, 3);
        long[] batch = ids.nextIds(3);
        long single = ids.nextId(); // the unit's last id, continued on the slow path (the clock lies behind it)
        assertEquals(T0 + 3, tiny.parse(batch[0]).timestampMillis());
        Set<Long> distinct = new HashSet<>();
        for (long id : batch) {
            assertTrue(distinct.add(id), "id " + id + " issued twice");
        }
        assertTrue(distinct.add(single), "id " + single + " issued twice");
        assertTrue(single > batch[2]);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertEquals(IdUnavailableException.Reason.SEQUENCE, refused.reason(), "the lead ends at T0 + 3");
    }

    @Test
    void aFloorOneUnitPastTheLeadHoldsTheGenerator() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(1, T0 + 3, T0 + 20);
        LeasedSnowflake ids = generator(tiny, 0, 3);
        assertEquals(IdUnavailableException.Reason.FLOOR,
                assertThrows(IdUnavailableException.class, ids::nextId).reason());
    }

    @Test
    void aGeneratorClosedBeforeItsFirstIdIssuesNone() {
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        assertEquals(T0 - 1, ids.close());
        assertEquals(IdUnavailableException.Reason.CLOSED,
                assertThrows(IdUnavailableException.class, ids::nextId).reason());
        assertEquals(IdUnavailableException.Reason.CLOSED,
                assertThrows(IdUnavailableException.class, () -> ids.nextIds(2)).reason());
    }

    @Test
    void theLastIssuedMillisecondIsTheEndOfTheUnitOfTheLastIdEvenWhenItsSequenceIsUsedUp() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(15, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        assertEquals(T0 - 1, ids.lastIssuedMillis(), "the floor before the first id");
        ids.nextIds(4); // the whole of unit T0 on the highest slot: the word carries into the next unit
        assertEquals(T0, ids.lastIssuedMillis());
        assertEquals(T0, ids.stats().lastIssuedMillis());
        assertEquals(4, ids.stats().issued());
        assertEquals(T0, ids.close());
    }

    @Test
    void aBatchOfOneIsOneId() {
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        assertEquals(1, ids.nextIds(1).length);
        assertThrows(IllegalArgumentException.class, () -> ids.nextIds(0));
    }

    @Test
    void idsOnTheHighestSlotContinueTheirUnit() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(15, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        for (int sequence = 0; sequence < 4; sequence++) {
            IdParts parts = tiny.parse(ids.nextId());
            assertEquals(T0, parts.timestampMillis());
            assertEquals(15, parts.slot());
            assertEquals(sequence, parts.sequence());
        }
    }

    @Test
    void theLayoutsLastUnitIsNeverIssuedSoTheNextWordKeepsItsSignBit() {
        IdLayout short10 = new IdLayout(T0 - 1_022, 1, 10, 4, 2); // units 0..1023; T0 is unit 1022
        bind(0, T0 - 100, T0 + 31_000);
        LeasedSnowflake ids = generator(short10, 0);
        assertEquals(T0, short10.parse(ids.nextId()).timestampMillis(), "unit 1022, the last usable");
        clock.advanceMillis(1);
        assertEquals(IdUnavailableException.Reason.CLOCK_OUT_OF_RANGE,
                assertThrows(IdUnavailableException.class, ids::nextId).reason(), "unit 1023 is left unused");
    }

    @Test
    void aHeldCallWaitsExactlyItsBound() {
        bind(0, T0 + 1_000, T0 + 31_000); // the floor a second ahead: the waits never reach it
        long bound = 1_500_000; // one and a half milliseconds: a park of 1 ms, then the half left
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, bound);
        long before = clock.monotonicNanos();
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertEquals(IdUnavailableException.Reason.FLOOR, refused.reason());
        assertEquals(bound, clock.monotonicNanos() - before);
        assertTrue(refused.getMessage().contains("(waited 1 ms)"), refused.getMessage());
    }

    @Test
    void aUsedUpSequenceNamesHowManyIdsTheUnitHeld() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        ids.nextIds(4);
        IdUnavailableException refused = assertThrows(IdUnavailableException.class, ids::nextId);
        assertTrue(refused.getMessage().contains("all 4 ids of the unit"), refused.getMessage());
    }

    @Test
    void aNewClockUnitStartsAtSequenceZeroOnTheFastPath() {
        bind(0, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(IdLayout.MILLISECOND, 0);
        ids.nextId();
        ids.nextId(); // the fast path, which leaves its guess of the word behind
        clock.advanceMillis(1);
        IdParts parts = IdLayout.MILLISECOND.parse(ids.nextId());
        assertEquals(T0 + 1, parts.timestampMillis(), "the clock's unit, not the rest of the last one");
        assertEquals(0, parts.sequence());
    }

    @Test
    void afterAMoveToSlotZeroInTheSameMillisecondNoIdIsIssuedOnTheOldSlot() {
        IdLayout tiny = new IdLayout(T0 - 1_000, 1, 41, 4, 2);
        bind(5, T0 - 1, T0 + 31_000);
        LeasedSnowflake ids = generator(tiny, 0);
        ids.nextId();
        binding.set(new Binding(binding.get().lease, Binding.State.LOST));
        bind(0, T0 - 1, T0 + 31_000); // the next slot, bound within the same millisecond
        for (int call = 0; call < 2; call++) { // the first caches the new window, the second takes the fast path
            IdUnavailableException held = assertThrows(IdUnavailableException.class, ids::nextId);
            assertEquals(IdUnavailableException.Reason.SEQUENCE, held.reason(), "slot 0 starts at the next unit");
        }
        clock.advanceMillis(1);
        IdParts parts = tiny.parse(ids.nextId());
        assertEquals(0, parts.slot());
        assertEquals(T0 + 1, parts.timestampMillis());
    }

    @Test
    void theEpochsFirstUnitBelowTheFloorIsHeldByTheFloor() {
        IdLayout fromNow = new IdLayout(T0, 1, 41, 4, 2); // T0 is unit 0
        bind(0, T0 + 5, T0 + 31_000);
        assertEquals(IdUnavailableException.Reason.FLOOR,
                assertThrows(IdUnavailableException.class, () -> generator(fromNow, 0).nextId()).reason());
    }

    @Test
    void theLayoutsLastUsableUnitPastTheCeilingIsHeldByTheCeiling() {
        IdLayout short10 = new IdLayout(T0 - 1_022, 1, 10, 4, 2); // T0 is unit 1022, the last usable
        bind(0, T0 - 100, T0 - 1);
        assertEquals(IdUnavailableException.Reason.CEILING,
                assertThrows(IdUnavailableException.class, () -> generator(short10, 0).nextId()).reason());
    }
}
