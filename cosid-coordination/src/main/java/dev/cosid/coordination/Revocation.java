package dev.cosid.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * The end of one leadership held through an {@link Elector}: which, why and when.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * public void revoked(Revocation revocation) {
 *     if (revocation.reason() == Revocation.Reason.RENEWALS_FAILING) {
 *         alert("lost touch with the cluster: " + revocation.detail());
 *     }
 * }
 * }</pre>
 *
 * @param leadership the leadership that ended
 * @param reason why it ended
 * @param detail one sentence on what happened
 * @param cause the failure behind it, if any
 * @param atMillis when the elector stopped the work, by its own clock
 */
public record Revocation(Leadership leadership, Reason reason, String detail, Optional<Throwable> cause,
                         long atMillis) {

    /** Why a leadership ended. */
    public enum Reason {
        /** A newer epoch exists: another member holds the role. */
        FENCED,
        /**
         * No renewal succeeded in time: the work stopped at the lease's deadline minus the elector's margin,
         * by this member's clock, before a standby may challenge.
         */
        RENEWALS_FAILING,
        /** The work returned or threw; the elector gave the role up. */
        WORK_ENDED,
        /** The elector was closed, or the leadership was given up on purpose. */
        RESIGNED
    }

    /** Checks the parts. */
    public Revocation {
        Objects.requireNonNull(leadership, "leadership");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(cause, "cause");
    }

    @Override
    public String toString() {
        return reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ": " + detail;
    }
}
