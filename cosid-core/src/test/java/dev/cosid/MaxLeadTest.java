package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code maxLead}: a used-up unit moves on ahead of the clock, never past the lead or the ceiling. */
class MaxLeadTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final IdLayout LAYOUT = IdLayout.MILLISECOND;
    private static final int PER_UNIT = 4096;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(clock);

    private CosIdRuntime.Builder manual() {
        return CosIdRuntime.builder().namespace("orders").ownerKey("node-a").store(store).clock(clock)
                .scheduler(scheduler).maxWait(Duration.ZERO).tolerance(Duration.ZERO);
    }

    /** Issues whole units until refused; returns the refusal and checks every id on the way. */
    private static IdUnavailableException drain(SnowflakeId ids, long[] issued, long[] last) {
        for (;;) {
            long[] batch;
            try {
                batch = ids.nextIds(PER_UNIT);
            } catch (IdUnavailableException e) {
                return e;
            }
            for (long id : batch) {
                assertTrue(id > last[0], "ids increase");
                last[0] = id;
            }
            issued[0] += batch.length;
        }
    }

    @ParameterizedTest(name = "ticking clock {0}")
    @ValueSource(booleans = {false, true})
    void aBurstOfAMillionIdsNeverPassesTheCeilingNorLeadsTheClockByMoreThanMaxLead(boolean ticking) {
        long maxLead = 1_000;
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("burst").store(new InMemoryLeaseStore(Clock.system()))
                .maxLead(Duration.ofMillis(maxLead)).tickingClock(ticking).start()) {
            SnowflakeId ids = runtime.snowflake("burst");
            long[] issued = new long[1_000_000];
            long[] clockAfter = new long[issued.length];
            for (int i = 0; i < issued.length; i++) {
                issued[i] = ids.nextId();
                clockAfter[i] = Clock.system().nowMillis();
            }
            SlotLease lease = runtime.lease();
            long mostAhead = Long.MIN_VALUE;
            for (int i = 0; i < issued.length; i++) {
                long millis = LAYOUT.parse(issued[i]).timestampMillis();
                if (i > 0 && issued[i] <= issued[i - 1]) {
                    fail("id " + i + " does not increase");
                }
                if (millis <= lease.floor() || millis > lease.ceiling()) {
                    fail("id " + i + " at " + millis + " ms lies outside the window " + lease);
                }
                if (millis - clockAfter[i] > maxLead) {
                    fail("id " + i + " at " + millis + " ms leads the clock at " + clockAfter[i] + " ms by more than "
                            + maxLead + " ms");
                }
                mostAhead = Math.max(mostAhead, millis - clockAfter[i]);
            }
            System.out.println("burst of 1,000,000 ids with maxLead 1 s" + (ticking ? " and the ticking clock" : "")
                    + ": at most " + mostAhead + " ms ahead of the clock");
        }
    }

    @Test
    void aStoppedClockLetsAGeneratorRunExactlyMaxLeadAheadThenTheSequenceHolds() {
        try (CosIdRuntime runtime = manual().maxLead(Duration.ofSeconds(1)).start()) {
            long[] issued = {0};
            long[] last = {-1};
            IdUnavailableException refused = drain(runtime.snowflake("order"), issued, last);
            assertEquals(IdUnavailableException.Reason.SEQUENCE, refused.reason());
            assertTrue(refused.getMessage().contains("nor come within the lead of 1000 ms"), refused.getMessage());
            assertEquals(1_001L * PER_UNIT, issued[0], "the units T0 .. T0 + 1 s, all of them");
            assertEquals(T0 + 1_000, LAYOUT.parse(last[0]).timestampMillis());
        }
    }

    @Test
    void theLeadNeverPassesTheCeiling() {
        try (CosIdRuntime runtime = manual().ttl(Duration.ofMillis(300)).maxLead(Duration.ofSeconds(1)).start()) {
            long ceiling = runtime.lease().ceiling();
            assertEquals(T0 + 300, ceiling);
            long[] issued = {0};
            long[] last = {-1};
            IdUnavailableException refused = drain(runtime.snowflake("order"), issued, last);
            assertEquals(IdUnavailableException.Reason.CEILING, refused.reason());
            assertEquals(ceiling, LAYOUT.parse(last[0]).timestampMillis());
            assertEquals(301L * PER_UNIT, issued[0]);
        }
    }

    @Test
    void withoutALeadTheSequenceWaitsForTheClockAsBefore() {
        try (CosIdRuntime runtime = manual().start()) {
            long[] issued = {0};
            long[] last = {-1};
            IdUnavailableException refused = drain(runtime.snowflake("order"), issued, last);
            assertEquals(IdUnavailableException.Reason.SEQUENCE, refused.reason());
            assertEquals(PER_UNIT, issued[0]);
        }
    }

    @Test
    void aReleaseHandsOnAMillisecondStillInTheFutureAndTheNextHolderStartsAfterIt() {
        long lastBefore;
        try (CosIdRuntime runtime = manual().maxLead(Duration.ofSeconds(1)).start()) {
            SnowflakeId ids = runtime.snowflake("order");
            for (int i = 0; i < 10; i++) {
                ids.nextIds(PER_UNIT);
            }
            lastBefore = ids.nextId();
            assertEquals(T0 + 10, LAYOUT.parse(lastBefore).timestampMillis(), "ten units ahead of the clock");
            assertEquals(T0 + 10, ids.stats().lastIssuedMillis());
        }
        SlotRecord released = store.read("orders").bySlot().get(0);
        assertEquals(T0 + 10, released.nextFloor(), "the exact last issued millisecond, 10 ms past the clock");

        // without a lead, the next holder waits for the clock to pass the floor
        try (CosIdRuntime runtime = manual().start()) {
            assertEquals(T0 + 10, runtime.lease().floor());
            IdUnavailableException refused = assertThrows(IdUnavailableException.class,
                    () -> runtime.snowflake("order").nextId());
            assertEquals(IdUnavailableException.Reason.FLOOR, refused.reason());
        }
        // with a lead, it starts in the first unit past the floor at once
        try (CosIdRuntime runtime = manual().maxLead(Duration.ofMillis(20)).start()) {
            long first = runtime.snowflake("order").nextId();
            assertEquals(T0 + 11, LAYOUT.parse(first).timestampMillis());
            assertTrue(first > lastBefore);
        }
    }

    @Test
    void aStaticSlotWritesTheLedLastMillisecondAndARestartStartsPastIt() {
        Path file = dir.resolve("state");
        CosIdRuntime.Builder builder = CosIdRuntime.builder().namespace("orders").staticSlot(3).stateFile(file)
                .clock(clock).scheduler(scheduler).maxWait(Duration.ZERO).maxLead(Duration.ofSeconds(1));
        long last;
        try (CosIdRuntime runtime = builder.start()) {
            SnowflakeId ids = runtime.snowflake("order");
            for (int i = 0; i < 5; i++) {
                ids.nextIds(PER_UNIT);
            }
            last = ids.nextId();
        }
        assertEquals(T0 + 5, StateFile.read(file).orElseThrow().ceiling());
        try (CosIdRuntime again = builder.start()) {
            assertEquals(T0 + 5, again.lease().floor());
            long first = again.snowflake("order").nextId();
            assertEquals(T0 + 6, LAYOUT.parse(first).timestampMillis());
            assertTrue(first > last);
        }
    }

    @Test
    void maxLeadIsCheckedAgainstItsBoundsNamingTheValue() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> manual().maxLead(Duration.ofMillis(-1)).start());
        assertEquals("maxLead of -1 ms is negative", negative.getMessage());
        IllegalArgumentException tooLong = assertThrows(IllegalArgumentException.class,
                () -> manual().maxLead(Duration.ofMinutes(2)).start());
        assertEquals("maxLead of 2 min is longer than the most, 1 min", tooLong.getMessage());
        IllegalArgumentException unset = assertThrows(IllegalArgumentException.class,
                () -> manual().maxLead(null).start());
        assertEquals("maxLead is not set", unset.getMessage());
    }

    @Test
    void configurationKeysSetTheLeadAndTheTickingClock() {
        try (CosIdRuntime runtime = manual().configure(Map.of("cosid.max-lead", "1s", "cosid.ticking-clock", "false"))
                .start()) {
            long[] issued = {0};
            drain(runtime.snowflake("order"), issued, new long[] {-1});
            assertEquals(1_001L * PER_UNIT, issued[0]);
        }
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> manual().configure(Map.of("cosid.ticking-clock", "yes")));
        assertEquals("cosid.ticking-clock = 'yes': 'yes' is neither true nor false", bad.getMessage());
        IllegalArgumentException far = assertThrows(IllegalArgumentException.class,
                () -> manual().configure(Map.of("cosid.max-lead", "2h")).start());
        assertEquals("maxLead of 2 h is longer than the most, 1 min", far.getMessage());
    }
}
