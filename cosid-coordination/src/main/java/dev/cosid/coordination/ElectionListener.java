package dev.cosid.coordination;

import java.util.Optional;

/**
 * What an {@link Elector} reports, each as one call. Every method has an empty default, so a listener
 * overrides only what it needs. A listener that throws is logged and never stops the elector.
 *
 * <p>Calls come from the elector's own threads: {@link #revoked} may come from its timer thread while a
 * renewal is still waiting on the cluster, so that the work stops before the deadline.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ElectionListener listener = new ElectionListener() {
 *     public void elected(Leadership leadership) {
 *         log.info("leading {} with token {}", leadership.role(), leadership.token());
 *     }
 *     public void revoked(Revocation revocation) {
 *         log.warn("stopped leading: {}", revocation);
 *     }
 * };
 * }</pre>
 */
public interface ElectionListener {

    /** The listener that does nothing. */
    ElectionListener NONE = new ElectionListener() { };

    /**
     * The member joined the role's roster.
     *
     * @param role the role
     * @param member this member
     */
    default void registered(Role role, MemberId member) {
    }

    /**
     * The succession rules say wait: nothing changes before {@code untilMillis} unless the holder leaves.
     * Reported when the instant or the rank changes.
     *
     * @param role the role
     * @param untilMillis the instant this member challenges, by its own clock
     * @param rank its challenge rank
     */
    default void waiting(Role role, long untilMillis, int rank) {
    }

    /**
     * The member is about to mint an epoch for the role.
     *
     * @param role the role
     * @param rank its challenge rank
     */
    default void challenged(Role role, int rank) {
    }

    /**
     * The member holds the role: its work starts now.
     *
     * @param leadership the live leadership, with the token to fence writes with
     */
    default void elected(Leadership leadership) {
    }

    /**
     * A renewal was written.
     *
     * @param leadership the leadership
     * @param lease the lease as written
     */
    default void renewed(Leadership leadership, Lease lease) {
    }

    /**
     * A renewal failed for a reason other than a fence; the elector retries until {@code revokeAtMillis}.
     *
     * @param leadership the leadership
     * @param failure what failed
     * @param revokeAtMillis when the elector stops the work unless a renewal succeeds first, by its own clock
     */
    default void renewalFailed(Leadership leadership, CoordinationException failure, long revokeAtMillis) {
    }

    /**
     * The member stopped leading; the work was interrupted before this call.
     *
     * @param revocation the leadership, why it ended and when
     */
    default void revoked(Revocation revocation) {
    }

    /**
     * The member that holds the role changed, as this member sees it.
     *
     * @param role the role
     * @param leader the holder of a live lease, or empty while nobody holds it
     */
    default void leaderChanged(Role role, Optional<MemberId> leader) {
    }

    /**
     * A step of the campaign failed (the cluster did not answer, say); the elector tries again.
     *
     * @param role the role
     * @param failure what failed
     */
    default void campaignFailed(Role role, CoordinationException failure) {
    }
}
