package dev.cosid.lease;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Remembers each namespace's slot limit, so a store checks slot numbers without a round trip per
 * operation.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * limits.requireSlot(namespace, slot, this::namespace);
 * }</pre>
 */
public final class NamespaceLimits {

    private final Map<String, Integer> limits = new ConcurrentHashMap<>();

    /**
     * Records a namespace's limit.
     *
     * @param namespace the namespace
     * @param record its record
     */
    public void remember(String namespace, NamespaceRecord record) {
        limits.put(namespace, record.limit());
    }

    /**
     * Reports whether this store registered or read the namespace before: a record missing now that
     * was there then vanished (the store lost data) rather than never having been written.
     *
     * @param namespace the namespace
     * @return true when its record was seen
     */
    public boolean remembers(String namespace) {
        return limits.containsKey(namespace);
    }

    /**
     * Checks a namespace name and a slot number against the namespace's limit, loading it once.
     *
     * @param namespace the namespace
     * @param slot the slot
     * @param loader reads the namespace record from the store
     * @throws IllegalArgumentException for a bad name or a slot out of range
     * @throws IllegalStateException when the namespace is not registered
     */
    public void requireSlot(String namespace, int slot, Function<String, Optional<NamespaceRecord>> loader) {
        Namespaces.require(namespace);
        Integer limit = limits.get(namespace);
        if (limit == null) {
            NamespaceRecord record = loader.apply(namespace).orElseThrow(() ->
                    new IllegalStateException("namespace '" + namespace + "' is not registered"));
            remember(namespace, record);
            limit = record.limit();
        }
        Namespaces.requireSlot(slot, limit);
    }
}
