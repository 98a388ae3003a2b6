package dev.cosid.coordination;

/**
 * Every failure of the coordination module: a transport error, a malformed record, a bad argument
 * to the election, or an election that timed out.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     client.acquire(role, member, Duration.ofMinutes(1));
 * } catch (CoordinationException e) {
 *     log.warn("no leadership: {}", e.getMessage());
 * }
 * }</pre>
 */
public class CoordinationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what failed
     */
    public CoordinationException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param cause the underlying failure
     */
    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }
}
