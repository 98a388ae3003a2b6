package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import java.time.Duration;

/**
 * What a runtime needs from whatever keeps its window: a store lease ({@link LeaseKeeper}) or a
 * static slot ({@link StaticSlotKeeper}). The binding is published through one volatile field; every
 * step, the stop and the release run under one lock, so a release never races a step. The methods the
 * runtime drives stay package-private.
 */
abstract class SlotKeeper {

    /** Guards the steps, the stop and the release. */
    final Object lock = new Object();
    private final Scheduler scheduler;
    private final Clock statusClock;
    private Scheduler.Cancellable nextStep;
    private boolean stopped;
    /** The window generators check every id against. */
    volatile Binding binding;
    // what status() reports; written under the lock (or before the keeper is shared), read by anyone
    private volatile long nextStepAt = -1;
    volatile long clockSkewMillis;
    volatile long lastAcquireMillis;
    volatile long renewals;
    volatile long renewalFailures;
    volatile long leasesLost;

    SlotKeeper(Scheduler scheduler, Clock clock) {
        this.scheduler = scheduler;
        this.statusClock = clock;
    }

    /** Returns one reading of the window and the keeper's counters. */
    final RuntimeStatus status(Owner owner, boolean staticSlot) {
        Binding current = binding;
        RuntimeStatus.State state;
        switch (current.state) {
            case BOUND: state = RuntimeStatus.State.BOUND; break;
            case LOST: state = RuntimeStatus.State.LOST; break;
            case FAILED: state = RuntimeStatus.State.FAILED; break;
            default: state = RuntimeStatus.State.CLOSED; break;
        }
        boolean stopped = state == RuntimeStatus.State.CLOSED || state == RuntimeStatus.State.FAILED;
        return new RuntimeStatus(current.lease.namespace(), owner, staticSlot, state, current.lease,
                statusClock.nowMillis(), clockSkewMillis, stopped ? -1 : nextStepAt,
                lastAcquireMillis, renewals, renewalFailures, leasesLost,
                current.reason == null ? "" : current.reason);
    }

    /** Returns the binding generators check every id against. */
    final Binding binding() {
        return binding;
    }

    /** Returns the current window, or the last one if it was lost or released. */
    public final SlotLease lease() {
        return binding.lease;
    }

    /** Binds the first window, waiting at most the timeout. */
    abstract void start(Duration acquireTimeout);

    /** Runs one scheduled step under the lock. */
    abstract void step();

    /** Gives a bound window back with the exact last issued millisecond. */
    abstract void giveBack(SlotLease lease, long lastIssuedMillis);

    /**
     * Records the layout of an id space before its first id, or returns the layout recorded before.
     *
     * @param name the generator's name
     * @param proposed the layout it asks for
     * @return the recorded layout, which may differ
     */
    abstract LayoutRecord registerLayout(String name, LayoutRecord proposed);

    /** Frees what the keeper holds once the window is given back; called once, under the lock. */
    void closed() {
    }

    /** Schedules the next step unless stopped; call under the lock. */
    final void schedule(Duration delay) {
        if (!stopped) {
            nextStepAt = statusClock.nowMillis() + delay.toMillis();
            nextStep = scheduler.schedule(delay, this::step);
        }
    }

    /** Reports whether {@link #stop()} was called; read under the lock. */
    final boolean stopped() {
        return stopped;
    }

    /** Stops scheduling; waits for a step in progress. */
    final void stop() {
        synchronized (lock) {
            stopped = true;
            if (nextStep != null) {
                nextStep.cancel();
            }
        }
    }

    /** Closes the binding and gives the window back, after the generators are closed. */
    final void release(long lastIssuedMillis) {
        synchronized (lock) {
            Binding last = binding;
            binding = new Binding(last.lease, Binding.State.CLOSED, last.reason);
            try {
                if (last.state == Binding.State.BOUND) {
                    giveBack(last.lease, lastIssuedMillis);
                }
            } finally {
                closed();
            }
        }
    }
}
