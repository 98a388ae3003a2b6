package dev.cosid.coordination;

/**
 * A newer epoch exists for the role: this leadership has ended. It is the only signal that a
 * leadership ended; stop the role's work at once and do not retry with the same handle.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     leadership.renew();
 * } catch (FencedException e) {
 *     stopControllerWork();
 * }
 * }</pre>
 */
public final class FencedException extends CoordinationException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the role and the superseded token
     */
    public FencedException(String message) {
        super(message);
    }

    /**
     * Creates the exception.
     *
     * @param message the role and the superseded token
     * @param cause the transport's fencing error
     */
    public FencedException(String message, Throwable cause) {
        super(message, cause);
    }
}
