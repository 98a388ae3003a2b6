package dev.cosid;

/**
 * A static slot's state file cannot be used: unreadable, corrupt, or written for another slot. The
 * file is never replaced; the message says how to recover.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // state file /var/lib/cosid/state belongs to namespace 'orders' slot 5, not slot 3. ...
 * }</pre>
 */
public final class StateFileException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the file, the fault and the way to recover
     * @param cause the underlying failure, or null
     */
    public StateFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
