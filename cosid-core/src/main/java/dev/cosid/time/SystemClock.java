package dev.cosid.time;

import java.util.concurrent.locks.LockSupport;

/** The host's clock: the only place that reads the JDK's time sources. */
final class SystemClock implements Clock {

    static final SystemClock INSTANCE = new SystemClock();

    private SystemClock() {
    }

    @Override
    public long nowMillis() {
        return System.currentTimeMillis();
    }

    @Override
    public long monotonicNanos() {
        return System.nanoTime();
    }

    @Override
    public void park(long nanos) {
        if (nanos > 0) {
            LockSupport.parkNanos(nanos);
        }
    }

    @Override
    public String toString() {
        return "Clock.system()";
    }
}
