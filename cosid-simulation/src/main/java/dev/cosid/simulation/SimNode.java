package dev.cosid.simulation;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.SlotLease;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.time.Clock;
import dev.cosid.time.TickingClock;
import java.time.Duration;

/** One service instance: the real runtime on a simulated clock and scheduler; it can pause, crash and restart. */
final class SimNode implements SimProcess {

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
    /** The clock the runtime reads: the host clock, or a ticking clock over it. */
    private Clock runtimeClock;
    /** The highest reading of the runtime's clock this incarnation saw before it issued. */
    private long highestReading = Long.MIN_VALUE;
    private long tickStalledUntilNanos;

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

    @Override
    public int generation() {
        return generation;
    }

    @Override
    public boolean running() {
        return running;
    }

    @Override
    public boolean paused() {
        return time.nowNanos() < pausedUntilNanos;
    }

    @Override
    public long pausedUntilNanos() {
        return pausedUntilNanos;
    }

    /** Starts a new incarnation with the same owner key; retries while no slot can be had. */
    void start() {
        if (running) {
            return;
        }
        generation++;
        int mine = generation;
        highestReading = Long.MIN_VALUE;
        if (settings.tickNanos() > 0) {
            TickingClock ticking = TickingClock.manual(clock);
            runtimeClock = ticking;
            tick(mine, ticking);
        } else {
            runtimeClock = clock;
        }
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
                    .maxLead(settings.maxLead())
                    .acquireTimeout(Duration.ZERO)
                    .clock(runtimeClock)
                    .scheduler(new SimScheduler(time, this, mine))
                    .start();
            ids = runtime.snowflake("sim", settings.layout());
            running = true;
            availableSinceNanos = time.nowNanos();
            work(mine);
            if (settings.burst() > 0) {
                burst(mine);
            }
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

    /** Ticks every tick interval while this incarnation lives, unless paused or stalled. */
    private void tick(int mine, TickingClock ticking) {
        time.after(settings.tickNanos(), () -> {
            if (generation != mine) {
                return;
            }
            if (!paused() && time.nowNanos() >= tickStalledUntilNanos) {
                ticking.tick();
            }
            tick(mine, ticking);
        });
    }

    /** Stops the ticking clock's thread for a while: its reading stands still, then jumps. */
    void stallTick(long nanos) {
        tickStalledUntilNanos = Math.max(tickStalledUntilNanos, time.nowNanos() + nanos);
    }

    private void burst(int mine) {
        time.after(settings.burstEveryNanos(), () -> {
            if (generation != mine || !running) {
                return;
            }
            if (!paused()) {
                issue(settings.burst());
            }
            burst(mine);
        });
    }

    private void work(int mine) {
        time.after(settings.workIntervalNanos(), () -> {
            if (generation != mine || !running) {
                return;
            }
            if (!paused()) {
                issue(settings.batch());
            }
            work(mine);
        });
    }

    private void issue(int count) {
        SlotLease window = runtime.lease();
        // the generator reads this clock once or more in the call: nothing else runs meanwhile
        highestReading = Math.max(highestReading, runtimeClock.nowMillis());
        long lead = settings.maxLead().toMillis();
        try {
            long[] batch = ids.nextIds(count);
            for (long id : batch) {
                counters.checker.issued(id, window);
                long start = settings.layout().parse(id).timestampMillis();
                if (start > highestReading) {
                    counters.idsAhead++;
                }
                if (start - highestReading > lead && counters.ahead.size() < 20) {
                    counters.ahead.add("id " + id + " starts at " + start + " ms, more than the lead of " + lead
                            + " ms past the highest clock reading " + highestReading + " ms of " + key);
                }
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
