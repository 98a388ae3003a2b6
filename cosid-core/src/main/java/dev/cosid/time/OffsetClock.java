package dev.cosid.time;

import java.time.Duration;

/** A clock whose wall time is another clock's plus a fixed offset; monotonic time and waits pass through. */
final class OffsetClock implements Clock {

    private final Clock base;
    private final long offsetMillis;

    OffsetClock(Clock base, Duration offset) {
        this.base = base;
        this.offsetMillis = offset.toMillis();
    }

    @Override
    public long nowMillis() {
        return base.nowMillis() + offsetMillis;
    }

    @Override
    public long monotonicNanos() {
        return base.monotonicNanos();
    }

    @Override
    public void park(long nanos) {
        base.park(nanos);
    }

    @Override
    public String toString() {
        return base + (offsetMillis >= 0 ? " + " : " - ") + Math.abs(offsetMillis) + " ms";
    }
}
