package dev.cosid.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to, for tests and simulation.
 *
 * <p>{@link #set(long)} moves the wall clock alone, either way, as NTP or an operator would;
 * {@link #advance(Duration)} moves both the wall clock and the monotonic reading forward.
 * {@link #park(long)} advances the clock by the wait instead of sleeping, so a caller that waits for
 * time to pass finds that it has.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ManualClock clock = new ManualClock(1_700_000_000_000L);
 * clock.advance(Duration.ofSeconds(10));
 * clock.set(1_699_999_000_000L); // the wall clock steps back; monotonic time does not
 * }</pre>
 */
public final class ManualClock implements Clock {

    private final AtomicLong wallNanos;
    private final AtomicLong monotonicNanos = new AtomicLong();

    /**
     * Creates a clock that reads the given wall-clock time.
     *
     * @param nowMillis milliseconds since the Unix epoch
     */
    public ManualClock(long nowMillis) {
        this.wallNanos = new AtomicLong(Math.multiplyExact(nowMillis, 1_000_000L));
    }

    /**
     * Creates a clock that reads the given instant.
     *
     * @param now the start instant
     */
    public ManualClock(Instant now) {
        this(now.toEpochMilli());
    }

    @Override
    public long nowMillis() {
        return Math.floorDiv(wallNanos.get(), 1_000_000L);
    }

    @Override
    public long monotonicNanos() {
        return monotonicNanos.get();
    }

    /** Advances the clock by the wait, without sleeping. */
    @Override
    public void park(long nanos) {
        if (nanos > 0) {
            advanceNanos(nanos);
        }
    }

    /**
     * Sets the wall clock, forward or back; the monotonic reading does not move.
     *
     * @param nowMillis milliseconds since the Unix epoch
     * @return this clock
     */
    public ManualClock set(long nowMillis) {
        wallNanos.set(Math.multiplyExact(nowMillis, 1_000_000L));
        return this;
    }

    /**
     * Moves the wall clock and the monotonic reading forward.
     *
     * @param extent a non-negative extent
     * @return this clock
     */
    public ManualClock advance(Duration extent) {
        if (extent.isNegative()) {
            throw new IllegalArgumentException("cannot advance by a negative extent " + extent);
        }
        advanceNanos(extent.toNanos());
        return this;
    }

    /**
     * Moves the wall clock and the monotonic reading forward by milliseconds.
     *
     * @param millis a non-negative number of milliseconds
     * @return this clock
     */
    public ManualClock advanceMillis(long millis) {
        return advance(Duration.ofMillis(millis));
    }

    private void advanceNanos(long nanos) {
        wallNanos.addAndGet(nanos);
        monotonicNanos.addAndGet(nanos);
    }

    @Override
    public String toString() {
        return "ManualClock[" + nowMillis() + " ms]";
    }
}
