package dev.cosid.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A deliberately broken copy of {@link TickingClock}, for the negative control of
 * {@link TickingClockLincheckTest}: its tick as it was before the fix, a check of the closed mark followed by a
 * plain write, which a close in between is lost to. Test code only.
 */
final class FlawedTickingClock implements Clock, AutoCloseable {

    /** The published reading after {@link #close()}: reads go to the source. */
    private static final long CLOSED = Long.MIN_VALUE;
    private static final VarHandle NOW;

    static {
        try {
            NOW = MethodHandles.lookup().findVarHandle(FlawedTickingClock.class, "now", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // read and written through NOW
    private volatile long now;
    private final Clock source;
    private final long tickNanos;
    private final boolean shared;
    private final Thread thread;
    private volatile boolean running;

    private FlawedTickingClock(Clock source, long tickNanos, boolean shared, String threadName) {
        this.source = source;
        this.tickNanos = tickNanos;
        this.shared = shared;
        NOW.setVolatile(this, source.nowMillis());
        if (threadName == null) {
            this.thread = null;
        } else {
            this.running = true;
            this.thread = new Thread(this::run, threadName);
            this.thread.setDaemon(true);
            this.thread.start();
        }
    }

    /**
     * Starts a clock of its own on a daemon thread that reads the source once a tick until closed.
     *
     * @param source the clock to read, such as {@link Clock#system()}
     * @param tick how often to read it, 100 µs to 1 s
     * @return the running clock
     */
    static FlawedTickingClock start(Clock source, Duration tick) {
        if (source == null) {
            throw new NullPointerException("source is null");
        }
        return new FlawedTickingClock(source, checkTick(tick), false, "cosid-ticking-clock");
    }

    /**
     * Returns a clock with no thread: it shows the source's reading of the last {@link #tick()}.
     *
     * @param source the clock to read
     * @return the clock, ticked once
     */
    static FlawedTickingClock manual(Clock source) {
        if (source == null) {
            throw new NullPointerException("source is null");
        }
        return new FlawedTickingClock(source, 0, false, null);
    }

    private static long checkTick(Duration tick) {
        if (tick == null) {
            throw new NullPointerException("tick is null");
        }
        if (tick.compareTo(Duration.ofNanos(100_000)) < 0 || tick.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException("tick of " + tick + " is outside 100 µs..1 s");
        }
        return tick.toNanos();
    }

    @Override
    public long nowMillis() {
        long now = (long) NOW.getVolatile(this);
        return now != CLOSED ? now : source.nowMillis();
    }

    @Override
    public long monotonicNanos() {
        return source.monotonicNanos();
    }

    @Override
    public void park(long nanos) {
        source.park(nanos);
    }

    /**
     * Reads the source and publishes its reading; the thread calls this once a tick, a test or the
     * simulation calls it itself.
     *
     * @return the reading now shown
     */
    public long tick() {
        long now = source.nowMillis();
        if ((long) NOW.getVolatile(this) != CLOSED) {
            NOW.setVolatile(this, now);
        }
        return now;
    }

    /** Returns the clock this one reads. */
    public Clock source() {
        return source;
    }

    /** Reports whether this is the JVM's shared clock, which is never closed. */
    public boolean isShared() {
        return shared;
    }

    private void run() {
        while (running) {
            tick();
            LockSupport.parkNanos(tickNanos);
        }
    }

    /**
     * Stops the thread; from then on reads go to the source. Idempotent; does nothing on the shared
     * clock, which other runtimes may be reading.
     */
    @Override
    public void close() {
        if (shared) {
            return;
        }
        running = false;
        NOW.setVolatile(this, CLOSED);
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public String toString() {
        if (shared) {
            return "Clock.ticking()";
        }
        return "TickingClock[" + source + (thread == null ? ", manual" : ", every " + tickNanos / 1_000 + " µs")
                + ((long) NOW.getVolatile(this) == CLOSED ? ", closed" : "") + "]";
    }
}
