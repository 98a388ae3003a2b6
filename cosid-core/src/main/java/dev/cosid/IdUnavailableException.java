package dev.cosid;

import java.util.Objects;

/**
 * No id could be issued within the wait bound: the window, the clock or the runtime's state held it.
 *
 * <p>The message names the bound that held it (floor, ceiling, clock behind last issued, closed)
 * with the numbers; {@link #reason()} names it for programs and meters.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     long id = ids.nextId();
 * } catch (IdUnavailableException e) {
 *     // retry later, or fail the request; the id space stays free of duplicates either way
 *     refusals.increment(e.reason());
 * }
 * }</pre>
 */
public class IdUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What held an id back. */
    public enum Reason {
        /** The clock has not passed the window's floor. */
        FLOOR,
        /** The next unit ends past the window's ceiling and no renewal raised it. */
        CEILING,
        /** Every sequence of the current unit is issued and the clock has not reached the next unit. */
        SEQUENCE,
        /** The clock is behind the last issued unit, whose sequence is used up. */
        CLOCK_BEHIND,
        /** The clock lies outside the layout's time range (before its epoch or past its last unit). */
        CLOCK_OUT_OF_RANGE,
        /** The lease on the slot was lost; no id is issued until a new slot is bound. */
        SLOT_LOST,
        /** The generator or its runtime is closed, or the runtime stopped for good. */
        CLOSED,
        /**
         * A segment generator used up every range it reserved and the store did not answer the next
         * reservation within the wait bound.
         */
        SEGMENT_PENDING
    }

    private final Reason reason;

    /**
     * Creates the exception.
     *
     * @param reason what held the id
     * @param message what held the id and the numbers
     */
    public IdUnavailableException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Returns what held the id. */
    public Reason reason() {
        return reason;
    }
}
