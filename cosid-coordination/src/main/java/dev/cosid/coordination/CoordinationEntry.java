package dev.cosid.coordination;

import java.util.Objects;
import java.util.Optional;

/**
 * One decoded record of the coordination topic with its offset; an empty value is a tombstone.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationEntry entry = new CoordinationEntry(42, CoordinationKey.lease(role), Optional.of(lease));
 * }</pre>
 *
 * @param offset the record's offset in the role's partition
 * @param key the key
 * @param value the value, or empty for a tombstone
 */
public record CoordinationEntry(long offset, CoordinationKey key, Optional<CoordinationValue> value) {

    /** Checks the key and the value holder. */
    public CoordinationEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }
}
