package dev.cosid.lease;

/**
 * The durations one store operation applies, in milliseconds.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseTerms terms = new LeaseTerms(30_000, 1_000);
 * }</pre>
 *
 * @param ttlMillis how long a lease lives past the store's now
 * @param toleranceMillis how far past its expiry the holder may still issue
 */
public record LeaseTerms(long ttlMillis, long toleranceMillis) {

    /** Checks both durations. */
    public LeaseTerms {
        if (ttlMillis < 1) {
            throw new IllegalArgumentException("ttl of " + ttlMillis + " ms is less than 1 ms");
        }
        if (toleranceMillis < 0) {
            throw new IllegalArgumentException("tolerance of " + toleranceMillis + " ms is negative");
        }
    }
}
