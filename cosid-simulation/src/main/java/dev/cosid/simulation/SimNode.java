package dev.cosid.simulation;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.SlotLease;
import dev.cosid.SlotsExhaustedException;
import java.time.Duration;

/** One service instance: the real runtime on a simulated clock and scheduler; it can pause, crash and restart. */
final class SimNode {

    private final String key;
    private final VirtualTime time;
    private final SimClock clock;
    private final LeaseStore store;
    private final Simulation.Settings settings;
    private final Simulation.Counters counters;
    private int generation;
    private boolean running;
    private long pausedUntilNanos;
    private CosIdRuntime runtime;
    private SnowflakeId ids;
    private long availableSinceNanos = -1;

    SimNode(String key, VirtualTime time, SimClock clock, LeaseStore store, Simulation.Settings settings,
            Simulation.Counters counters) {
        this.key = key;
        this.time = time;
        this.clock = clock;
        this.store = store;
        this.settings = settings;
        this.counters = counters;
    }

    String key() {
        return key;
    }

    SimClock clock() {
        return clock;
    }

    int generation() {
        return generation;
    }

    boolean running() {
        return running;
    }

    boolean paused() {
        return time.nowNanos() < pausedUntilNanos;
    }

    long pausedUntilNanos() {
        return pausedUntilNanos;
    }

    /** Starts a new incarnation with the same owner key; retries while no slot can be had. */
    void start() {
        if (running) {
            return;
        }
        generation++;
        int mine = generation;
        try {
            runtime = CosIdRuntime.builder()
                    .namespace("sim")
                    .store(store)
                    .ownerKey(key)
                    .ttl(settings.ttl())
                    .tolerance(settings.tolerance())
                    .bits(settings.bits())
                    .maxWait(Duration.ZERO)
                    .coldStartGuard(settings.coldStartGuard())
                    .takeoverGuard(settings.takeoverGuard())
                    .acquireTimeout(Duration.ZERO)
                    .clock(clock)
                    .scheduler(new SimScheduler(time, this, mine))
                    .start();
            ids = runtime.snowflake("sim", settings.layout());
            running = true;
            availableSinceNanos = time.nowNanos();
            work(mine);
        } catch (SlotsExhaustedException | LeaseStoreException e) {
            counters.refused++;
            time.after(Duration.ofMillis(200).toNanos(), () -> {
                if (generation == mine && !running) {
                    generation--;
                    start();
                }
            });
        }
    }

    private void work(int mine) {
        time.after(settings.workIntervalNanos(), () -> {
            if (generation != mine || !running) {
                return;
            }
            if (!paused()) {
                issue();
            }
            work(mine);
        });
    }

    private void issue() {
        SlotLease window = runtime.lease();
        try {
            long[] batch = ids.nextIds(settings.batch());
            for (long id : batch) {
                counters.checker.issued(id, window);
            }
            counters.issued += batch.length;
            availableSinceNanos = time.nowNanos();
        } catch (IdUnavailableException e) {
            counters.refused++;
            counters.unavailable(time.nowNanos() - availableSinceNanos);
        }
    }

    /** Freezes the process (GC, VM pause): no step, no id, while its clock runs on. */
    void pause(Duration extent) {
        pausedUntilNanos = time.nowNanos() + extent.toNanos();
        availableSinceNanos = pausedUntilNanos;
    }

    /** Dies without releasing: the lease stays until it expires. */
    void crash() {
        generation++;
        running = false;
        runtime = null;
        ids = null;
    }

    /** Closes cleanly: generators closed, slot released with the exact last issued millisecond. */
    void shutdown() {
        if (!running) {
            return;
        }
        generation++;
        running = false;
        try {
            runtime.close();
        } catch (RuntimeException e) {
            counters.refused++;
        }
        runtime = null;
    }
}
