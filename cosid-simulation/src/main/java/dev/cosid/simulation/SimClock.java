package dev.cosid.simulation;

import dev.cosid.time.Clock;

/**
 * A host clock in the simulation: virtual time plus an offset and a drift, which faults change; it
 * can be set back or forward. Monotonic time is the virtual time itself. Nothing in the simulation
 * waits ({@code maxWait} and {@code acquireTimeout} are zero), so {@link #park(long)} returns at once.
 */
final class SimClock implements Clock {

    private final VirtualTime time;
    private final long epochMillis;
    private long offsetMillis;
    private double driftPerSecond;
    private long driftSinceNanos;
    private long driftedMillis;

    SimClock(VirtualTime time, long epochMillis) {
        this.time = time;
        this.epochMillis = epochMillis;
    }

    @Override
    public long nowMillis() {
        return epochMillis + time.nowNanos() / 1_000_000 + offsetMillis + drifted();
    }

    private long drifted() {
        return driftedMillis + (long) ((time.nowNanos() - driftSinceNanos) / 1e9 * driftPerSecond);
    }

    @Override
    public long monotonicNanos() {
        return time.nowNanos();
    }

    @Override
    public void park(long nanos) {
        // the simulation never waits inside a call; time moves only between events
    }

    /** Moves the wall clock by a step, back (negative) or forward. */
    void step(long millis) {
        offsetMillis += millis;
    }

    /** Sets how many milliseconds the clock gains (or loses) per second from now on. */
    void drift(double millisPerSecond) {
        driftedMillis = drifted();
        driftSinceNanos = time.nowNanos();
        driftPerSecond = millisPerSecond;
    }

    long offsetMillis() {
        return offsetMillis + drifted();
    }
}
