package dev.cosid.testkit;

import dev.cosid.IdUnavailableException;
import dev.cosid.SlotLostException;
import dev.cosid.SnowflakeId;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Draws ids from a generator on its own thread, at a bounded rate, keeping every id and counting
 * refusals, for tests that check uniqueness while a server misbehaves.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (IdPump pump = IdPump.start("a", runtime.snowflake("order"))) {
 *     server.restart();
 * }
 * long[] ids = pump.ids();
 * }</pre>
 */
public final class IdPump implements AutoCloseable {

    private static final int BATCH = 32;

    private final SnowflakeId generator;
    private final Thread thread;
    private final AtomicLong ceilingRefusals = new AtomicLong();
    private final AtomicLong lostRefusals = new AtomicLong();
    private final AtomicLong otherRefusals = new AtomicLong();
    private final AtomicLong issued = new AtomicLong();
    private volatile boolean running = true;
    private long[] ids = new long[1 << 16];
    private int count;

    private IdPump(String name, SnowflakeId generator) {
        this.generator = generator;
        this.thread = new Thread(this::pump, "id-pump-" + name);
        thread.setDaemon(true);
    }

    /**
     * Starts drawing ids.
     *
     * @param name a name for the thread
     * @param generator the generator
     * @return the running pump
     */
    public static IdPump start(String name, SnowflakeId generator) {
        IdPump pump = new IdPump(name, generator);
        pump.thread.start();
        return pump;
    }

    private void pump() {
        while (running) {
            try {
                long[] batch = generator.nextIds(BATCH);
                synchronized (this) {
                    if (count + batch.length > ids.length) {
                        ids = Arrays.copyOf(ids, ids.length * 2);
                    }
                    System.arraycopy(batch, 0, ids, count, batch.length);
                    count += batch.length;
                }
                issued.addAndGet(batch.length);
            } catch (SlotLostException e) {
                lostRefusals.incrementAndGet();
            } catch (IdUnavailableException e) {
                if (e.getMessage().contains("held by the ceiling")) {
                    ceilingRefusals.incrementAndGet();
                } else {
                    otherRefusals.incrementAndGet();
                }
                if (e.getMessage().contains("is closed")) {
                    return;
                }
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
    }

    /** Returns how many ids were issued so far. */
    public long issued() {
        return issued.get();
    }

    /** Returns how many calls were refused at the ceiling. */
    public long ceilingRefusals() {
        return ceilingRefusals.get();
    }

    /** Returns how many calls failed with a lost slot. */
    public long lostRefusals() {
        return lostRefusals.get();
    }

    /** Returns how many calls were refused for another reason. */
    public long otherRefusals() {
        return otherRefusals.get();
    }

    /** Returns every id issued so far. */
    public synchronized long[] ids() {
        return Arrays.copyOf(ids, count);
    }

    /** Stops drawing and waits for the thread. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
