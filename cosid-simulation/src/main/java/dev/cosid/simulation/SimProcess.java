package dev.cosid.simulation;

/**
 * A process on the virtual timeline, as its {@link SimScheduler} sees it: an incarnation that runs, may be
 * paused, and ends when the process crashes or shuts down.
 */
interface SimProcess {

    /** Returns the current incarnation; it moves on at every start, crash and shutdown. */
    int generation();

    /** Reports whether the current incarnation runs (it may still be paused). */
    boolean running();

    /** Reports whether the process is frozen now. */
    boolean paused();

    /** Returns when the current pause ends, in virtual nanoseconds. */
    long pausedUntilNanos();
}
