package dev.cosid.coordination;

import java.time.Duration;
import java.util.Objects;

/**
 * The lease policy of a role: how long a lease lasts, how often its holder renews it, and how far
 * apart standbys challenge.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseConfig config = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(5));
 * Lease lease = config.grant(me, token, clock.nowMillis());
 * LeaseTiming timing = config.timing(lease);
 * }</pre>
 *
 * @param duration the lease duration
 * @param renewInterval the holder's renew interval, shorter than the duration
 * @param challengeStagger the delay between successive challenger ranks
 */
public record LeaseConfig(Duration duration, Duration renewInterval, Duration challengeStagger) {

    /** 30 s leases renewed every 10 s, challengers 5 s apart. */
    public static final LeaseConfig DEFAULT = of(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(5));

    /** Checks every extent and that the renew interval is shorter than the duration. */
    public LeaseConfig {
        requirePositive("duration", duration);
        requirePositive("renewInterval", renewInterval);
        requirePositive("challengeStagger", challengeStagger);
        if (renewInterval.compareTo(duration) >= 0) {
            throw new CoordinationException("the renew interval of " + renewInterval.toMillis()
                    + " ms is not shorter than the lease duration of " + duration.toMillis() + " ms");
        }
    }

    private static void requirePositive(String name, Duration extent) {
        Objects.requireNonNull(extent, name);
        if (extent.isNegative() || extent.isZero() || extent.compareTo(Duration.ofMillis(1)) < 0) {
            throw new CoordinationException(name + " of " + extent.toNanos() / 1_000_000.0
                    + " ms is not at least 1 ms");
        }
    }

    /**
     * Returns a policy.
     *
     * @param duration the lease duration
     * @param renewInterval the holder's renew interval
     * @param challengeStagger the delay between challenger ranks
     * @return the policy
     * @throws NullPointerException naming the extent that is null
     * @throws CoordinationException naming the extent that is shorter than 1 ms, or when the renew interval
     *     is not shorter than the duration
     */
    public static LeaseConfig of(Duration duration, Duration renewInterval, Duration challengeStagger) {
        return new LeaseConfig(duration, renewInterval, challengeStagger);
    }

    /** Reports whether the holder renews at least three times per lease: {@code 3 * renewInterval <= duration}. */
    public boolean renewsWithMargin() {
        return Saturating.multiply(3, renewInterval.toMillis()) <= duration.toMillis();
    }

    /**
     * Returns how long a challenger of a rank waits past the deadline.
     *
     * @param rank the rank, zero for the first standby
     * @return {@code rank * stagger} in ms, 0 for rank 0 or below, saturating
     */
    public long challengeDelayMillis(int rank) {
        return rank <= 0 ? 0 : Saturating.multiply(rank, challengeStagger.toMillis());
    }

    /**
     * Grants a lease now.
     *
     * @param member the holder
     * @param token its epoch
     * @param nowMillis the grant instant
     * @return a lease whose deadline is {@code now + duration}, saturating
     */
    public Lease grant(MemberId member, FencingToken token, long nowMillis) {
        return new Lease(member, token, nowMillis, Saturating.add(nowMillis, duration.toMillis()));
    }

    /**
     * Returns the lease clock of a lease under this policy.
     *
     * @param lease the lease
     * @return its timing
     */
    public LeaseTiming timing(Lease lease) {
        return new LeaseTiming(lease, this);
    }
}
