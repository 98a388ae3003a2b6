package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/** Every layout knows when its timestamp bits run out; a runtime near that instant says so once. */
class RunwayTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final long DAY = 86_400_000L;

    /** A second layout of 2^25 s (388 days) whose epoch lies 200 days before T0: it runs out 188 days after T0. */
    private static final IdLayout NEAR_END = new IdLayout(T0 - 200 * DAY, 1000, 25, 10, 20);

    private final String namespace = "runway-" + UUID.randomUUID().toString().substring(0, 8);
    private final ManualClock clock = new ManualClock(T0);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(clock);
    private final ManualScheduler scheduler = new ManualScheduler(clock);

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder().namespace(namespace).store(store).ownerKey("node-a").clock(clock)
                .scheduler(scheduler).maxWait(Duration.ZERO);
    }

    private List<RecordingLogs.Event> warnings() {
        return RecordingLogs.containing("namespace '" + namespace + "'").stream()
                .filter(event -> event.level() == Level.WARN && event.message().contains("runs out")).toList();
    }

    @Test
    void aLayoutRunsOutTheMillisecondAfterItsLastUnit() {
        assertEquals(Instant.parse("2039-09-25T21:54:18.752Z"), IdLayout.SAFE_JS_MILLISECOND_LEGACY_EPOCH.runsOutAt());
        assertEquals(IdLayout.COSID_EPOCH_MILLIS + (1L << 41), IdLayout.MILLISECOND.runsOutAt().toEpochMilli());
        assertEquals(IdLayout.COSID_EPOCH_MILLIS + (1L << 31) * 1000, IdLayout.SECOND.runsOutAt().toEpochMilli());
        assertEquals(Duration.ofMillis((1L << 25) * 1000 - 200 * DAY), NEAR_END.runway(clock));
        assertEquals(1, IdLayout.MILLISECOND.runwayMillis(IdLayout.MILLISECOND.endMillis()));
        assertEquals(0, IdLayout.MILLISECOND.runwayMillis(IdLayout.MILLISECOND.runsOutAt().toEpochMilli()));
        IdLayout endless = new IdLayout(0, Long.MAX_VALUE / 4, 62, 0, 0);
        assertEquals(Long.MAX_VALUE, endless.runwayMillis(T0), "bits that outlast a long have no end");
    }

    @Test
    void aRuntimeStartingWithinAYearOfItsLayoutsEndWarnsOnceAndReportsTheRunway() {
        try (CosIdRuntime runtime = builder().layout(NEAR_END).start()) {
            runtime.snowflake("order");
            runtime.snowflake("invoice", NEAR_END);
            List<RecordingLogs.Event> warnings = warnings();
            assertEquals(1, warnings.size(), "one warning for the layout, not one per generator: " + warnings);
            String message = warnings.get(0).message();
            assertTrue(message.startsWith("layout IdLayout(epoch " + NEAR_END.epochMillis() + " ms, unit 1000 ms, 25 + 10"
                    + " + 20 bits) of the runtime of namespace '" + namespace + "' runs out in 188 days, at "
                    + NEAR_END.runsOutAt()), message);
            RuntimeStatus status = runtime.status();
            assertEquals(NEAR_END.runsOutAt().toEpochMilli(), status.layoutRunsOutAt());
            assertEquals(NEAR_END.runwayMillis(T0), status.runwayMillis());
            clock.advance(Duration.ofDays(1));
            assertEquals(NEAR_END.runwayMillis(T0) - DAY, runtime.status().runwayMillis(), "the runway shrinks with the clock");
        }
    }

    @Test
    void theStatusShowsTheEarliestLayoutOfTheGeneratorsAndAFarLayoutWarnsOfNothing() {
        try (CosIdRuntime runtime = builder().start()) {
            assertEquals(IdLayout.MILLISECOND.runsOutAt().toEpochMilli(), runtime.status().layoutRunsOutAt(),
                    "without generators, the default layout's");
            runtime.snowflake("order");
            runtime.snowflake("batch", IdLayout.SECOND);
            assertEquals(IdLayout.SECOND.runsOutAt().toEpochMilli(), runtime.status().layoutRunsOutAt());
            assertTrue(warnings().isEmpty(), warnings().toString());
            runtime.snowflake("late", NEAR_END);
            assertEquals(NEAR_END.runsOutAt().toEpochMilli(), runtime.status().layoutRunsOutAt());
            assertEquals(1, warnings().size(), "a generator created later with a short runway warns: " + warnings());
        }
    }

    @Test
    void aDefaultLayoutMustHoldTheNamespacesBits() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder().bits(10).layout(IdLayout.SAFE_JS_SECOND).start());
        assertEquals("bits 10 exceed the layout's slot bits 3", e.getMessage());
    }
}
