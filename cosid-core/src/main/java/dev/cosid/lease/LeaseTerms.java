package dev.cosid.lease;

/**
 * The durations one store operation applies, in milliseconds.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseTerms terms = new LeaseTerms(30_000, 1_000);
 * LeaseTerms guarded = new LeaseTerms(30_000, 1_000, true);
 * LeaseTerms bothGuards = new LeaseTerms(30_000, 1_000, true, true);
 * }</pre>
 *
 * @param ttlMillis how long a lease lives past the store's now
 * @param toleranceMillis how far past its expiry the holder may still issue
 * @param coldStartGuard whether a slot record created where none existed starts with
 *     {@code nextFloor = now + ttl + tolerance}, so a store that lost its data never hands out a
 *     window an earlier holder may still be issuing in
 * @param takeoverGuard whether an acquire that takes a slot from an expired holder (one that did not
 *     release it) starts its window at {@code now + ttl + tolerance} or later, so a record that stepped
 *     back (an asynchronous failover lost its last renewals) never hands out a window its holder may
 *     still be issuing in
 */
public record LeaseTerms(long ttlMillis, long toleranceMillis, boolean coldStartGuard, boolean takeoverGuard) {

    /**
     * The longest ttl or tolerance a store accepts, about 100 years: a store clock plus both stays far
     * below {@link Long#MAX_VALUE}, so no sum a store computes can overflow. Runtimes allow far less
     * ({@code dev.cosid.Limits}).
     */
    public static final long MAX_MILLIS = 3_155_760_000_000L;

    /** The shortest bound {@link #callBoundMillis(long)} gives: a loaded machine still answers within it. */
    public static final long MIN_CALL_BOUND_MILLIS = 250;

    /**
     * Creates terms without either guard.
     *
     * @param ttlMillis how long a lease lives past the store's now
     * @param toleranceMillis how far past its expiry the holder may still issue
     */
    public LeaseTerms(long ttlMillis, long toleranceMillis) {
        this(ttlMillis, toleranceMillis, false, false);
    }

    /**
     * Creates terms without the takeover guard.
     *
     * @param ttlMillis how long a lease lives past the store's now
     * @param toleranceMillis how far past its expiry the holder may still issue
     * @param coldStartGuard whether a slot record created where none existed starts past ttl + tolerance
     */
    public LeaseTerms(long ttlMillis, long toleranceMillis, boolean coldStartGuard) {
        this(ttlMillis, toleranceMillis, coldStartGuard, false);
    }

    /**
     * Returns these terms with the cold-start guard on; the takeover guard stays as it is.
     *
     * @return guarded terms
     */
    public LeaseTerms guarded() {
        return coldStartGuard ? this : new LeaseTerms(ttlMillis, toleranceMillis, true, takeoverGuard);
    }

    /** Returns the next floor of a slot record created now: 0, or {@code now + ttl + tolerance} when guarded. */
    public long initialNextFloor(long storeNow) {
        return coldStartGuard ? guardFloor(storeNow) : 0;
    }

    /**
     * Returns {@code now + ttl + tolerance}: past the ceiling of any holder whose last renewal the store
     * answered at or before {@code now}, which is what both guards wait for.
     *
     * @param storeNow the store's clock, ms
     * @return the guarded floor, saturated at {@link Long#MAX_VALUE}
     */
    public long guardFloor(long storeNow) {
        return LeaseTransitions.saturatedAdd(LeaseTransitions.saturatedAdd(storeNow, ttlMillis), toleranceMillis);
    }

    /**
     * Returns how long one store call on these terms may block: a sixth of the ttl, at least
     * {@link #MIN_CALL_BOUND_MILLIS}, at most the store's own bound. A keeper renews every ttl/3, so a call
     * that hangs fails in time for the next attempt instead of holding the keeper, and its close, past the window.
     *
     * @param configuredMillis the store's own longest call
     * @return the bound, ms
     */
    public long callBoundMillis(long configuredMillis) {
        return Math.min(configuredMillis, Math.max(MIN_CALL_BOUND_MILLIS, ttlMillis / 6));
    }

    /** Checks both durations. */
    public LeaseTerms {
        if (ttlMillis < 1 || ttlMillis > MAX_MILLIS) {
            throw new IllegalArgumentException("ttl of " + ttlMillis + " ms is outside 1.." + MAX_MILLIS + " ms");
        }
        if (toleranceMillis < 0 || toleranceMillis > MAX_MILLIS) {
            throw new IllegalArgumentException("tolerance of " + toleranceMillis + " ms is outside 0.." + MAX_MILLIS
                    + " ms");
        }
    }
}
