package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every duration and instant is checked against its limit before a store or a file is touched. */
class LimitsTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final Duration HUGE = Duration.ofHours(100_000_000);

    private final ManualClock clock = new ManualClock(T0);
    private final InMemoryLeaseStore memory = new InMemoryLeaseStore(clock);
    private final FaultyStore store = new FaultyStore(memory);
    private final ManualScheduler scheduler = new ManualScheduler(clock);

    @TempDir
    Path dir;

    private CosIdRuntime.Builder leased() {
        return CosIdRuntime.builder().namespace("orders").store(store).clock(clock).scheduler(scheduler);
    }

    private CosIdRuntime.Builder staticSlot() {
        return CosIdRuntime.builder().namespace("orders").staticSlot(1).stateFile(dir.resolve("state")).clock(clock)
                .scheduler(scheduler);
    }

    /** Starts with one setting changed and returns the refusal, asserting the store was never called. */
    private IllegalArgumentException refusedBeforeTheStore(UnaryOperator<CosIdRuntime.Builder> setting) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> setting.apply(leased()).start());
        assertEquals(0, store.calls.get(), "no store call");
        assertEquals(Optional.empty(), memory.namespace("orders"), "nothing written");
        assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
        return refused;
    }

    private IllegalArgumentException refusedBeforeTheFile(UnaryOperator<CosIdRuntime.Builder> setting) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> setting.apply(staticSlot()).start());
        assertFalse(Files.exists(dir.resolve("state")), "no state file written");
        assertFalse(Files.exists(dir.resolve("state.lock")), "not even the lock file");
        return refused;
    }

    @Test
    void aHugeTtlIsRefusedBeforeAnySlotIsAcquired() {
        IllegalArgumentException refused = refusedBeforeTheStore(b -> b.ttl(HUGE));
        assertEquals("ttl of 100000000 h is longer than the most, 24 h", refused.getMessage());
    }

    @Test
    void aHugeToleranceIsRefusedBeforeTheNamespaceIsRegistered() {
        assertEquals("tolerance of 100000000 h is longer than the most, 1 h",
                refusedBeforeTheStore(b -> b.tolerance(HUGE)).getMessage());
    }

    @Test
    void aHugeMaxWaitOrAcquireTimeoutIsRefusedBeforeTheStore() {
        assertEquals("maxWait of 100000000 h is longer than the most, 24 h",
                refusedBeforeTheStore(b -> b.maxWait(HUGE)).getMessage());
        assertEquals("acquireTimeout of 100000000 h is longer than the most, 366 days",
                refusedBeforeTheStore(b -> b.acquireTimeout(HUGE)).getMessage());
        // the largest duration Java has would overflow nanoseconds
        refusedBeforeTheStore(b -> b.acquireTimeout(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void negativeAndTooShortDurationsAreRefusedBeforeTheStore() {
        assertEquals("ttl of -5 s is negative", refusedBeforeTheStore(b -> b.ttl(Duration.ofSeconds(-5))).getMessage());
        assertEquals("ttl of 2 ms is shorter than the least, 3 ms",
                refusedBeforeTheStore(b -> b.ttl(Duration.ofMillis(2))).getMessage());
        assertEquals("tolerance of -1 ms is negative",
                refusedBeforeTheStore(b -> b.tolerance(Duration.ofMillis(-1))).getMessage());
        assertEquals("bits 17 are outside 0..16", refusedBeforeTheStore(b -> b.bits(17)).getMessage());
    }

    @Test
    void aHugeAheadIsRefusedBeforeTheStateFileIsWritten() {
        assertEquals("ahead of 100000000 h is longer than the most, 24 h",
                refusedBeforeTheFile(b -> b.ahead(HUGE)).getMessage());
        assertEquals("ahead of 1 ms is shorter than the least, 2 ms",
                refusedBeforeTheFile(b -> b.ahead(Duration.ofMillis(1))).getMessage());
    }

    @Test
    void aNotBeforeFarInTheFutureNeedsAnExplicitOptIn() {
        Instant year2100 = Instant.parse("2100-01-01T00:00:00Z");
        IllegalArgumentException refused = refusedBeforeTheFile(b -> b.notBefore(year2100));
        assertTrue(refused.getMessage().startsWith("not-before 2100-01-01T00:00:00Z lies "), refused.getMessage());
        assertTrue(refused.getMessage().contains("allowFutureNotBefore(true), --allow-future-not-before"),
                refused.getMessage());
        // within a day of the clock needs nothing
        try (CosIdRuntime runtime = staticSlot().notBefore(Instant.ofEpochMilli(T0 + 3_600_000)).start()) {
            assertEquals(T0 + 3_600_000, runtime.lease().floor());
        }
        // meant, and said so
        try (CosIdRuntime runtime = staticSlot().stateFile(dir.resolve("later")).notBefore(year2100)
                .allowFutureNotBefore(true).start()) {
            assertEquals(year2100.toEpochMilli(), runtime.lease().floor());
        }
    }

    @Test
    void aNotBeforePastTheLastPresetIdOrBefore1970IsRefusedEvenWhenAllowed() {
        assertTrue(refusedBeforeTheFile(b -> b.notBefore(Instant.parse("2200-01-01T00:00:01Z"))
                .allowFutureNotBefore(true)).getMessage().contains("lies past 2200-01-01T00:00:00Z"));
        assertTrue(refusedBeforeTheFile(b -> b.notBefore(Instant.parse("1969-12-31T23:59:59Z")))
                .getMessage().contains("lies before 1970-01-01T00:00:00Z"));
    }

    @Test
    void aStateFileOrNotBeforeWithoutAStaticSlotIsRefused() {
        IllegalArgumentException refused = refusedBeforeTheStore(b -> b.stateFile(dir.resolve("state")));
        assertTrue(refused.getMessage().contains("belong to a static slot"), refused.getMessage());
    }

    @Test
    void leaseTermsThatCouldOverflowAStoreSumAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LeaseTerms(Long.MAX_VALUE / 2, 1_000));
        assertThrows(IllegalArgumentException.class, () -> new LeaseTerms(30_000, Long.MAX_VALUE / 2));
        LeaseTerms longest = new LeaseTerms(LeaseTerms.MAX_MILLIS, LeaseTerms.MAX_MILLIS, true);
        assertTrue(longest.initialNextFloor(T0) > T0, "no overflow at the limits");
    }

    @Test
    void aMismatchFoundOnlyAtTheStoreIsBadInputToo() {
        try (CosIdRuntime first = leased().start()) {
            NamespaceMismatchException mismatch = assertThrows(NamespaceMismatchException.class,
                    () -> leased().tolerance(Duration.ofSeconds(2)).start());
            assertTrue(IllegalArgumentException.class.isInstance(mismatch), "exit 2 on the command line");
            assertTrue(mismatch.getMessage().contains("tolerance 1000 ms"), mismatch.getMessage());
            assertEquals(1, first.lease().fence());
        }
    }
}
