package dev.cosid.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The ticking clock: a reading published by ticks, a shared instance, a closed clock reading its source. */
class TickingClockTest {

    private static final long T0 = 1_800_000_000_000L;

    @Test
    void aManualClockShowsTheReadingOfItsLastTick() {
        ManualClock source = new ManualClock(T0);
        TickingClock ticking = TickingClock.manual(source);
        assertEquals(T0, ticking.nowMillis());
        source.advanceMillis(7);
        assertEquals(T0, ticking.nowMillis(), "a stalled tick lags");
        assertEquals(T0 + 7, ticking.tick());
        assertEquals(T0 + 7, ticking.nowMillis());
        source.set(T0 - 1_000);
        ticking.tick();
        assertEquals(T0 - 1_000, ticking.nowMillis(), "a step back shows at the next tick");
        assertEquals(source.monotonicNanos(), ticking.monotonicNanos());
    }

    @Test
    void aClosedClockReadsItsSourceDirectly() {
        ManualClock source = new ManualClock(T0);
        TickingClock ticking = TickingClock.manual(source);
        ticking.close();
        ticking.close();
        source.advanceMillis(5);
        assertEquals(T0 + 5, ticking.nowMillis());
        ticking.tick();
        source.advanceMillis(5);
        assertEquals(T0 + 10, ticking.nowMillis(), "a tick after close publishes nothing");
    }

    @Test
    void theThreadKeepsTheReadingCurrentUntilClosed() {
        ManualClock source = new ManualClock(T0);
        try (TickingClock ticking = TickingClock.start(source, Duration.ofMillis(1))) {
            source.advanceMillis(50);
            long deadline = Clock.system().monotonicNanos() + Duration.ofSeconds(10).toNanos();
            while (ticking.nowMillis() != T0 + 50) {
                assertTrue(Clock.system().monotonicNanos() < deadline, "the thread ticked within 10 s");
                Thread.onSpinWait();
            }
        }
    }

    @Test
    void theSharedClockIsOneInstanceThatFollowsTheSystemClockAndIgnoresClose() {
        TickingClock shared = Clock.ticking();
        assertSame(shared, Clock.ticking());
        assertTrue(shared.isShared());
        shared.close();
        long before = Clock.system().nowMillis();
        long deadline = Clock.system().monotonicNanos() + Duration.ofSeconds(10).toNanos();
        while (shared.nowMillis() < before) {
            assertTrue(Clock.system().monotonicNanos() < deadline, "the shared clock reached the system clock");
            Thread.onSpinWait();
        }
        assertTrue(shared.nowMillis() <= Clock.system().nowMillis(), "never ahead of the system clock");
        assertEquals("Clock.ticking()", shared.toString());
    }

    @Test
    void aTickOutsideItsRangeIsRefusedNamingIt() {
        IllegalArgumentException fast = assertThrows(IllegalArgumentException.class,
                () -> TickingClock.start(Clock.system(), Duration.ofNanos(10)));
        assertEquals("tick of PT0.00000001S is outside 100 µs..1 s", fast.getMessage());
    }
}
