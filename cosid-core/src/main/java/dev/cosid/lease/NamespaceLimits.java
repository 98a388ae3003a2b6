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
     * The error for a namespace record a store no longer finds: a {@link StoreDataLostException} when this
     * store registered or read it before (segment counters must not start again at 1, since ids up to their
     * lost values may be in use), else an {@link IllegalStateException} for a namespace never registered.
     *
     * @param namespace the namespace
     * @param store the store's description, without secrets
     * @return the exception to throw
     */
    public RuntimeException missing(String namespace, String store) {
        if (remembers(namespace)) {
            return new StoreDataLostException("the record of namespace '" + namespace + "' in " + store
                    + " is gone while in use: its segment counters are not started again at 1, since ids up to "
                    + "their lost values may be in use; restore the data, or raise each counter past every id "
                    + "issued ('./cosid migrate') after registering the namespace again");
        }
        return new IllegalStateException("namespace '" + namespace + "' is not registered in " + store
                + "; a runtime registers it at start");
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
