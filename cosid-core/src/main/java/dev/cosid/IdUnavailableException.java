package dev.cosid;

/**
 * No id could be issued within the wait bound: the window, the clock or the runtime's state held it.
 *
 * <p>The message names the bound that held it (floor, ceiling, clock behind last issued, closed)
 * with the numbers.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     long id = ids.nextId();
 * } catch (IdUnavailableException e) {
 *     // retry later, or fail the request; the id space stays free of duplicates either way
 * }
 * }</pre>
 */
public class IdUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what held the id and the numbers
     */
    public IdUnavailableException(String message) {
        super(message);
    }
}
