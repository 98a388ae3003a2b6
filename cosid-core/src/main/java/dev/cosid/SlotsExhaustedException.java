package dev.cosid;

/**
 * Every slot of a namespace is held by a live lease.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     runtime = builder.start();
 * } catch (SlotsExhaustedException e) {
 *     log.warn("no slot free until {}", Instant.ofEpochMilli(e.earliestExpiry()));
 * }
 * }</pre>
 */
public final class SlotsExhaustedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long earliestExpiry;

    /**
     * Creates the exception.
     *
     * @param message the namespace, limit and earliest expiry
     * @param earliestExpiry the earliest {@code expiresAt} of the live leases, store clock, ms
     */
    public SlotsExhaustedException(String message, long earliestExpiry) {
        super(message);
        this.earliestExpiry = earliestExpiry;
    }

    /** Returns the earliest expiry among the live leases, in store-clock milliseconds. */
    public long earliestExpiry() {
        return earliestExpiry;
    }
}
