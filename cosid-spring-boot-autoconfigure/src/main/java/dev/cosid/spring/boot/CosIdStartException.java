package dev.cosid.spring.boot;

/**
 * The CosId runtime did not start with valid properties: the store is unreachable, the namespace holds
 * other settings, no slot came free, or a state file is damaged. {@link CosIdFailureAnalyzer} reports it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * throw new CosIdStartException("orders", "sqlite:/var/lib/cosid/cosid.db", cause);
 * }</pre>
 */
public class CosIdStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String namespace;
    private final String store;

    /**
     * Creates the exception.
     *
     * @param namespace the namespace
     * @param store the store as configured, or a description of the static slot
     * @param cause why the start failed
     */
    public CosIdStartException(String namespace, String store, RuntimeException cause) {
        super("the CosId runtime of namespace '" + namespace + "' (" + store + ") did not start: "
                + cause.getMessage(), cause);
        this.namespace = namespace;
        this.store = store;
    }

    /** Returns the namespace. */
    public String namespace() {
        return namespace;
    }

    /** Returns the store as configured. */
    public String store() {
        return store;
    }
}
