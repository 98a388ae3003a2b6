package dev.cosid.lease;

/**
 * The store's data vanished or was replaced under this process: a database file deleted, truncated,
 * damaged or swapped for another, a namespace or slot record gone. The store refuses every further
 * operation instead of starting afresh, and a runtime that meets it stops issuing for good: an
 * earlier holder may still be issuing under a window the store no longer knows.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * throw new StoreDataLostException("sqlite:/var/lib/cosid/cosid.db was deleted while in use");
 * }</pre>
 */
public class StoreDataLostException extends LeaseStoreException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what vanished, where, and how to recover
     */
    public StoreDataLostException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message what vanished, where, and how to recover
     * @param cause the underlying failure
     */
    public StoreDataLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
