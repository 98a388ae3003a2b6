package dev.cosid.lease;

import java.util.regex.Pattern;

/**
 * The rule for namespace names, checked before any store call.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * String ns = Namespaces.require("orders");
 * }</pre>
 */
public final class Namespaces {

    /** The longest namespace name. */
    public static final int MAX_LENGTH = 64;

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]+");

    private Namespaces() {
    }

    /**
     * Returns the name if it is valid.
     *
     * @param namespace the name
     * @return the same name
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static String require(String namespace) {
        if (namespace == null || namespace.isEmpty()) {
            throw new IllegalArgumentException("namespace is empty");
        }
        if (namespace.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("namespace '" + namespace + "' has " + namespace.length()
                    + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        if (!VALID.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace '" + namespace
                    + "' may only contain the characters A-Z a-z 0-9 . _ -");
        }
        return namespace;
    }

    /**
     * Checks the names of a segment counter: its namespace and its id space.
     *
     * @param namespace the namespace
     * @param name the id space's name
     * @throws IllegalArgumentException naming the rule either breaks
     */
    public static void requireSegment(String namespace, String name) {
        require(namespace);
        Names.require(name);
    }

    /**
     * Checks a slot number against a namespace's limit.
     *
     * @param slot the slot
     * @param limit the number of slots
     * @return the slot
     */
    public static int requireSlot(int slot, int limit) {
        if (slot < 0 || slot >= limit) {
            throw new IllegalArgumentException("slot " + slot + " is outside 0.." + (limit - 1));
        }
        return slot;
    }
}
