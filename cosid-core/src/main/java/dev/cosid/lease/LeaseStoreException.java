package dev.cosid.lease;

/**
 * A store could not be reached or answered with an error; the operation may or may not have applied.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * throw new LeaseStoreException("cannot reach sqlite:/data/cosid.db: disk I/O error", cause);
 * }</pre>
 */
public class LeaseStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the store's address and what failed
     * @param cause the underlying failure, or null
     */
    public LeaseStoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Creates the exception.
     *
     * @param message the store's address and what failed
     */
    public LeaseStoreException(String message) {
        super(message);
    }
}
