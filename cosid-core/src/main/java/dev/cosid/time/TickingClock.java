package dev.cosid.time;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A wall clock read from a field that one background thread refreshes about once a tick (1 ms by
 * default): {@link #nowMillis()} is one volatile load instead of a call into the operating system.
 * {@link #monotonicNanos()} and {@link #park(long)} pass through to the source clock.
 *
 * <p>The reading lags the source by up to one tick plus however late the operating system wakes the
 * thread; it never runs ahead of the source. CosId's uniqueness never depends on the clock (every id
 * is checked against the leased window and the last id), so a lagging, stalled or stepping reading
 * only makes the ids' timestamps lag.
 *
 * <p>Lifecycle: {@link Clock#ticking()} is one clock shared by the whole JVM, started on first use on
 * a daemon thread that runs until the JVM exits; closing it does nothing. {@link #start(Clock, Duration)}
 * starts a clock of its own, which {@link #close()} stops (idempotent); a closed clock reads its source
 * directly, so a generator that still holds it keeps current timestamps. {@link #manual(Clock)} has
 * no thread and moves only on {@link #tick()}, for tests and the simulation.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Clock shared = Clock.ticking();                       // lives as long as the JVM
 * try (TickingClock own = TickingClock.start(Clock.system(), Duration.ofMillis(1))) {
 *     long now = own.nowMillis();                         // a volatile load
 * }
 * }</pre>
 */
public final class TickingClock extends TickingClockValue implements Clock, AutoCloseable {

    /** The published reading after {@link #close()}: reads go to the source. */
    private static final long CLOSED = Long.MIN_VALUE;
    private static final VarHandle NOW;

    static {
        try {
            NOW = MethodHandles.lookup().findVarHandle(TickingClockValue.class, "now", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Clock source;
    private final long tickNanos;
    private final boolean shared;
    private final Thread thread;
    private volatile boolean running;

    private TickingClock(Clock source, long tickNanos, boolean shared, String threadName) {
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
    public static TickingClock start(Clock source, Duration tick) {
        if (source == null) {
            throw new NullPointerException("source is null");
        }
        return new TickingClock(source, checkTick(tick), false, "cosid-ticking-clock");
    }

    /**
     * Returns a clock with no thread: it shows the source's reading of the last {@link #tick()}.
     *
     * @param source the clock to read
     * @return the clock, ticked once
     */
    public static TickingClock manual(Clock source) {
        if (source == null) {
            throw new NullPointerException("source is null");
        }
        return new TickingClock(source, 0, false, null);
    }

    /** The JVM's shared ticking clock of {@link Clock#ticking()}, started on first use. */
    static TickingClock shared() {
        return Shared.INSTANCE;
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
        // a compare-and-set, not a plain write: a close between the check and the write must not be undone,
        // or the closed clock would show this reading for good instead of reading its source
        for (long shown = (long) NOW.getVolatile(this); shown != CLOSED; shown = (long) NOW.getVolatile(this)) {
            if (NOW.compareAndSet(this, shown, now)) {
                break;
            }
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

    /** Holds the shared clock, created on the first call to {@link Clock#ticking()}. */
    private static final class Shared {
        static final TickingClock INSTANCE = new TickingClock(Clock.system(), 1_000_000L, true,
                "cosid-ticking-clock-shared");
    }
}

/** Padding before the reading, so that the field it shares a cache line with is never written per id. */
@SuppressWarnings("unused")
abstract class TickingClockLeft {
    long p01;
    long p02;
    long p03;
    long p04;
    long p05;
    long p06;
    long p07;
    long p08;
}

/** The reading. */
abstract class TickingClockValue extends TickingClockLeft {
    volatile long now;
}
