package dev.cosid.lease;

/**
 * What a namespace fixes for every runtime that joins it: the number of slots and the tolerance.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * NamespaceRecord stored = store.register("orders", new NamespaceRecord(1024, 1000));
 * }</pre>
 *
 * @param limit the number of slots, {@code 2^bits}
 * @param toleranceMillis how far past a lease's expiry its holder may still issue
 */
public record NamespaceRecord(int limit, long toleranceMillis) {

    /** Checks both values. */
    public NamespaceRecord {
        if (limit < 1) {
            throw new IllegalArgumentException("limit " + limit + " is less than 1 slot");
        }
        if (toleranceMillis < 0) {
            throw new IllegalArgumentException("tolerance of " + toleranceMillis + " ms is negative");
        }
    }

    @Override
    public String toString() {
        return limit + " slots and tolerance " + toleranceMillis + " ms";
    }
}
