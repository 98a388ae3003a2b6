package dev.cosid;

/**
 * A runtime's slot count or tolerance differs from what the namespace records.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // namespace 'orders' holds 1024 slots and tolerance 1000 ms; this runtime asks for 32 slots
 * // and tolerance 1000 ms
 * }</pre>
 */
public final class NamespaceMismatchException extends RuntimeException {

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
