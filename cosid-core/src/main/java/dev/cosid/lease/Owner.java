package dev.cosid.lease;

import java.util.Objects;
import java.util.UUID;

/**
 * Who holds a lease: a logical key and the incarnation of one process start.
 *
 * <p>A live lease of the same key but another incarnation is never taken over.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Owner owner = new Owner("host-a:8080", UUID.randomUUID());
 * }</pre>
 *
 * @param key the logical identity, such as {@code host:port}; 1 to 255 characters
 * @param incarnation a UUID per runtime start
 */
public record Owner(String key, UUID incarnation) {

    /** Checks the key and the incarnation. */
    public Owner {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(incarnation, "incarnation");
        if (key.isBlank() || key.length() > 255) {
            throw new IllegalArgumentException("owner key '" + key + "' must have 1 to 255 non-blank characters");
        }
        if (key.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("owner key '" + key + "' contains a control character");
        }
    }

    /**
     * Returns an owner with the given key and a fresh incarnation.
     *
     * @param key the owner key
     * @return a new owner
     */
    public static Owner of(String key) {
        return new Owner(key, UUID.randomUUID());
    }

    @Override
    public String toString() {
        return key + "/" + incarnation;
    }
}
