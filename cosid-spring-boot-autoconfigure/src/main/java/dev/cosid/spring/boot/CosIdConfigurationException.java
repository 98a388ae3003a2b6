package dev.cosid.spring.boot;

import java.util.Objects;

/**
 * A {@code cosid.*} property holds a value the runtime cannot use; the start of the application stops,
 * and {@link CosIdFailureAnalyzer} names the key, the value and what to do.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * throw new CosIdConfigurationException("cosid.bits", "17", "the bits must be 0 to 16", "Set cosid.bits to 0..16.");
 * }</pre>
 */
public class CosIdConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String value;
    private final String action;

    /**
     * Creates the exception.
     *
     * @param key the property, such as {@code cosid.ttl}
     * @param value its value as configured, or null when it is missing
     * @param reason why the value is refused
     * @param action what to change
     */
    public CosIdConfigurationException(String key, String value, String reason, String action) {
        this(key, value, reason, action, null);
    }

    /**
     * Creates the exception with its cause.
     *
     * @param key the property
     * @param value its value as configured, or null when it is missing
     * @param reason why the value is refused
     * @param action what to change
     * @param cause the failure behind it, or null
     */
    public CosIdConfigurationException(String key, String value, String reason, String action, Throwable cause) {
        super((value == null ? key + " is not set" : key + " = '" + value + "'") + ": " + reason, cause);
        this.key = Objects.requireNonNull(key, "key");
        this.value = value;
        this.action = Objects.requireNonNull(action, "action");
    }

    /** Returns the property. */
    public String key() {
        return key;
    }

    /** Returns the value as configured, or null when it is missing. */
    public String value() {
        return value;
    }

    /** Returns what to change. */
    public String action() {
        return action;
    }
}
