package dev.cosid.time;

import java.time.Duration;

/**
 * The one seam through which CosId reads time and waits.
 *
 * <p>{@link #nowMillis()} is the wall clock, which may jump; {@link #monotonicNanos()} only moves
 * forward and measures extents such as a wait bound. {@link #park(long)} waits; a manual clock moves
 * its own time instead, so code that waits stays deterministic under test.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Clock clock = Clock.system();
 * long now = clock.nowMillis();
 * }</pre>
 */
public interface Clock {

    /** Returns the wall-clock time in milliseconds since the Unix epoch. */
    long nowMillis();

    /** Returns a monotonic reading in nanoseconds, meaningful only as a difference. */
    long monotonicNanos();

    /**
     * Waits for about the given number of nanoseconds, or less.
     *
     * @param nanos the longest wait
     */
    void park(long nanos);

    /** Returns the clock of the host, read through the JDK. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }

    /**
     * Returns the JVM's shared ticking clock: the wall clock refreshed about once a millisecond by one
     * daemon thread, read as a volatile load. It lags the system clock by up to a millisecond plus the
     * thread's scheduling delay; see {@link TickingClock} for the lifecycle.
     *
     * @return the shared ticking clock, started on first use
     */
    static TickingClock ticking() {
        return TickingClock.shared();
    }

    /**
     * Returns a clock that reads another clock's wall time plus an offset: a host whose clock is
     * wrong, for tests, chaos runs and simulations.
     *
     * @param base the clock to follow
     * @param offset how far ahead (positive) or behind (negative) it runs
     * @return the skewed clock
     */
    static Clock offset(Clock base, Duration offset) {
        return new OffsetClock(base, offset);
    }

    /**
     * Converts an extent to whole milliseconds, rejecting negative ones.
     *
     * @param name the parameter name used in the message
     * @param extent the extent
     * @return the extent in milliseconds
     */
    static long millis(String name, Duration extent) {
        if (extent == null) {
            throw new NullPointerException(name + " is null");
        }
        if (extent.isNegative()) {
            throw new IllegalArgumentException(name + " of " + extent + " is negative");
        }
        return extent.toMillis();
    }
}
