package dev.cosid;

/**
 * A runtime's settings differ from what the store records for its namespace: the slot count, the
 * tolerance, or the layout of an id space. It is bad input (an {@link IllegalArgumentException}):
 * the command line exits 2 for it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // namespace 'orders' holds 1024 slots and tolerance 1000 ms; this runtime asks for 32 slots
 * // and tolerance 1000 ms
 * }</pre>
 */
public final class NamespaceMismatchException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the stored and the configured values
     */
    public NamespaceMismatchException(String message) {
        super(message);
    }
}
