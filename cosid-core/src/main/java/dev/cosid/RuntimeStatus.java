package dev.cosid;

import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;

/**
 * One reading of a runtime's lease and keeper: what a health check, a meter or a status page shows.
 *
 * <p>Every instant is in milliseconds since the Unix epoch; {@code localNow} is the runtime's clock
 * when the reading was taken, and {@link #canIssue()} judges the window against it, as generators do.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RuntimeStatus status = runtime.status();
 * if (!status.canIssue()) {
 *     health.down(status.problem());
 * }
 * long remaining = status.windowRemainingMillis();
 * long runway = status.runwayMillis(); // until the first layout's timestamp bits run out
 * }</pre>
 *
 * @param namespace the namespace
 * @param owner this runtime's owner key and incarnation
 * @param staticSlot whether the slot is static (no store)
 * @param state whether the window is bound, lost or closed
 * @param lease the current lease, or the last one when lost or closed
 * @param localNow the runtime's clock at the reading
 * @param clockSkewMillis the runtime's clock minus the store's at the latest store answer (0 for a static slot)
 * @param nextStepAt when the keeper next renews, retries or moves the ceiling (runtime clock); -1 when stopped
 * @param lastAcquireMillis how long the latest acquisition of a slot took
 * @param renewals the renewals that succeeded
 * @param renewalFailures the renewals and re-acquisitions that failed
 * @param leasesLost the leases found gone by a renewal
 * @param reason why the lease was lost or the runtime stopped for good, when the keeper knows; else empty
 * @param layoutRunsOutAt when the first of the runtime's layouts runs out ({@link IdLayout#runsOutAt()}), in
 *     milliseconds since the Unix epoch: the earliest of its generators' layouts, or its default layout's
 *     while it has none
 */
public record RuntimeStatus(String namespace, Owner owner, boolean staticSlot, State state, SlotLease lease,
                            long localNow, long clockSkewMillis, long nextStepAt, long lastAcquireMillis,
                            long renewals, long renewalFailures, long leasesLost, String reason,
                            long layoutRunsOutAt) {

    /**
     * A reading whose runway is that of the default layout, {@link IdLayout#MILLISECOND}.
     *
     * @param namespace the namespace
     * @param owner this runtime's owner key and incarnation
     * @param staticSlot whether the slot is static (no store)
     * @param state whether the window is bound, lost or closed
     * @param lease the current lease, or the last one when lost or closed
     * @param localNow the runtime's clock at the reading
     * @param clockSkewMillis the runtime's clock minus the store's at the latest store answer
     * @param nextStepAt when the keeper next renews, retries or moves the ceiling; -1 when stopped
     * @param lastAcquireMillis how long the latest acquisition of a slot took
     * @param renewals the renewals that succeeded
     * @param renewalFailures the renewals and re-acquisitions that failed
     * @param leasesLost the leases found gone by a renewal
     * @param reason why the lease was lost or the runtime stopped for good; else empty
     */
    public RuntimeStatus(String namespace, Owner owner, boolean staticSlot, State state, SlotLease lease,
                         long localNow, long clockSkewMillis, long nextStepAt, long lastAcquireMillis,
                         long renewals, long renewalFailures, long leasesLost, String reason) {
        this(namespace, owner, staticSlot, state, lease, localNow, clockSkewMillis, nextStepAt, lastAcquireMillis,
                renewals, renewalFailures, leasesLost, reason, IdLayout.MILLISECOND.runsOutAt().toEpochMilli());
    }

    /** Whether the runtime holds a window. */
    public enum State {
        /** A window is bound; generators issue inside it. */
        BOUND,
        /** The lease was lost; the keeper is binding a new slot. */
        LOST,
        /** The runtime is closed; nothing is issued any more. */
        CLOSED,
        /** The runtime stopped for good (its store lost its data); nothing is issued until it is closed. */
        FAILED
    }

    /** Reports whether an id of a millisecond layout could be issued now: bound, and {@code floor < now <= ceiling}. */
    public boolean canIssue() {
        return state == State.BOUND && lease.floor() < localNow && localNow <= lease.ceiling();
    }

    /** Returns the ceiling minus now: how long ids can be issued without another renewal; negative past it. */
    public long windowRemainingMillis() {
        return lease.ceiling() - localNow;
    }

    /**
     * Returns the time left before the first of the runtime's layouts runs out: {@code layoutRunsOutAt - localNow}.
     *
     * @return milliseconds; zero or negative once run out
     */
    public long runwayMillis() {
        return layoutRunsOutAt - localNow;
    }

    /**
     * Returns this reading with another runway.
     *
     * @param runsOutAt when the first of the runtime's layouts runs out, in milliseconds since the Unix epoch
     * @return the same reading with {@code layoutRunsOutAt} replaced
     */
    public RuntimeStatus withLayoutRunsOutAt(long runsOutAt) {
        return new RuntimeStatus(namespace, owner, staticSlot, state, lease, localNow, clockSkewMillis, nextStepAt,
                lastAcquireMillis, renewals, renewalFailures, leasesLost, reason, runsOutAt);
    }

    /** Returns why no id can be issued now, or an empty string when one can. */
    public String problem() {
        if (state == State.CLOSED) {
            return "the runtime of namespace '" + namespace + "' is closed";
        }
        if (state == State.FAILED) {
            return "the runtime of namespace '" + namespace + "' stopped for good: " + reason;
        }
        if (state == State.LOST) {
            return "the lease on slot " + lease.slot() + " of namespace '" + namespace + "' (fence " + lease.fence()
                    + ") was lost" + (reason.isEmpty() ? "" : " (" + reason + ")") + "; a new slot is being acquired";
        }
        if (localNow <= lease.floor()) {
            return "the clock at " + localNow + " ms has not passed the floor " + lease.floor() + " ms of slot "
                    + lease.slot();
        }
        if (localNow > lease.ceiling()) {
            return "the clock at " + localNow + " ms is past the ceiling " + lease.ceiling() + " ms of slot "
                    + lease.slot() + ": renewals have not reached the store";
        }
        return "";
    }
}
