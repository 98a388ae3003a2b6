package dev.cosid;

import dev.cosid.lease.SlotLease;
import java.time.Duration;

/**
 * What a runtime needs from whatever keeps its window: a store lease ({@link LeaseKeeper}) or a
 * static slot ({@link StaticSlotKeeper}). The methods stay package-private: only the runtime drives them.
 */
abstract class SlotKeeper {

    /** Returns the binding generators check every id against. */
    abstract Binding binding();

    /** Returns the current window, or the last one. */
    public abstract SlotLease lease();

    /** Binds the first window, waiting at most the timeout. */
    abstract void start(Duration acquireTimeout);

    /** Stops scheduled work; waits for a step in progress. */
    abstract void stop();

    /** Gives the window back with the exact last issued millisecond, after the generators are closed. */
    abstract void release(long lastIssuedMillis);
}
