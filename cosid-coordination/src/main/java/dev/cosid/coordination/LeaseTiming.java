package dev.cosid.coordination;

import java.time.Duration;
import java.util.Objects;

/**
 * The lease clock of one lease record under one policy.
 *
 * <p>Every method takes and returns milliseconds since the Unix epoch, because a deadline is a
 * coordinate and not an extent; {@link #remainingAt(long)} is the one exception and returns the
 * extent that is left. Read the deadline as a hint and not as a guarantee: a holder past its deadline
 * still owns the newest epoch until a challenger mints a newer one, and a challenger that reads a live
 * lease still wins the role at once if it mints an epoch anyway. The lease only stops it from trying.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseTiming timing = config.timing(lease);
 * if (timing.renewDueAt(clock.nowMillis())) {
 *     leadership.renew();
 * }
 * long myTurn = timing.challengeAtMillis(state.rankOf(me).orElseThrow());
 * }</pre>
 */
public final class LeaseTiming {

    private final Lease lease;
    private final LeaseConfig config;

    /**
     * Binds a lease record to a policy.
     *
     * @param lease the lease record to read
     * @param config the policy that supplies the renew interval and the stagger
     * @throws NullPointerException if the lease or the config is null
     */
    public LeaseTiming(Lease lease, LeaseConfig config) {
        this.lease = Objects.requireNonNull(lease, "lease");
        this.config = Objects.requireNonNull(config, "config");
    }

    /** Returns the lease record behind this clock. */
    public Lease lease() {
        return lease;
    }

    /** Returns the instant the lease expires, in milliseconds since the Unix epoch. */
    public long expiresAtMillis() {
        return lease.deadline();
    }

    /**
     * Reports whether the lease is live at one instant: before its deadline, expired from it on.
     *
     * @param nowMillis the instant to test
     * @return true when the instant falls before the deadline
     */
    public boolean liveAt(long nowMillis) {
        return nowMillis < lease.deadline();
    }

    /**
     * Returns the extent that is left before the deadline.
     *
     * @param nowMillis the instant to measure from
     * @return the remaining extent, and zero from the deadline on
     */
    public Duration remainingAt(long nowMillis) {
        if (!liveAt(nowMillis)) {
            return Duration.ZERO;
        }
        return Duration.ofMillis(Saturating.subtract(lease.deadline(), nowMillis));
    }

    /**
     * Returns the instant at which the holder writes its next renewal: the grant instant plus the
     * renew interval, never past the deadline.
     *
     * @return the renewal instant
     */
    public long renewAtMillis() {
        return Math.min(Saturating.add(lease.grantedAt(), config.renewInterval().toMillis()), lease.deadline());
    }

    /**
     * Reports whether the holder writes a renewal at one instant.
     *
     * @param nowMillis the instant to test
     * @return true when the renewal instant has passed
     */
    public boolean renewDueAt(long nowMillis) {
        return nowMillis >= renewAtMillis();
    }

    /**
     * Returns the instant at which a challenger of one rank challenges: rank 0 at the deadline, each
     * later rank one challenge stagger later, saturating.
     *
     * @param rank the challenge rank, where zero is the first standby
     * @return the challenge instant
     */
    public long challengeAtMillis(int rank) {
        return Saturating.add(lease.deadline(), config.challengeDelayMillis(rank));
    }

    @Override
    public String toString() {
        return "LeaseTiming[" + lease + ", " + config + "]";
    }
}
