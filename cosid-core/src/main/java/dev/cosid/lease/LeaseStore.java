package dev.cosid.lease;

import java.util.Optional;

/**
 * Where slot leases live: the SPI every store implements, each operation one atomic conditional
 * update of one slot, judged by the store's own clock.
 *
 * <p>The conditions and changes are those of {@link LeaseTransitions}; every implementation passes
 * the contract suite in {@code cosid-testkit}. Failures to reach the store raise
 * {@link LeaseStoreException}; a condition that does not hold is an empty answer, not an error.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (LeaseStore store = LeaseStores.open("sqlite:/var/lib/cosid/cosid.db")) {
 *     NamespaceRecord stored = store.register("orders", new NamespaceRecord(1024, 1000));
 *     Optional<SlotLease> lease = store.acquire("orders", 0, Owner.of("host:8080"), new LeaseTerms(30_000, 1_000));
 * }
 * }</pre>
 */
public interface LeaseStore extends AutoCloseable {

    /**
     * Writes the namespace record if the namespace has none, and returns the stored record.
     *
     * @param namespace a valid namespace name
     * @param proposed the record to write when none exists
     * @return the record the store holds, which may differ from the proposal
     */
    NamespaceRecord register(String namespace, NamespaceRecord proposed);

    /**
     * Returns the namespace record, if the namespace was registered.
     *
     * @param namespace a valid namespace name
     * @return the stored record
     */
    Optional<NamespaceRecord> namespace(String namespace);

    /**
     * Records the layout of an id space (a generator name) of a namespace if it has none, and returns
     * the stored one. The default keeps nothing and throws {@link UnsupportedOperationException}; every
     * store CosId ships records layouts.
     *
     * @param namespace a valid namespace name
     * @param name the id space, checked by {@link Names#require(String)}
     * @param proposed the layout to record when none is
     * @return the layout the store holds, which may differ from the proposal
     * @throws UnsupportedOperationException when the store keeps no layouts
     */
    default LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        throw new UnsupportedOperationException(describe() + " keeps no layouts of id spaces");
    }

    /**
     * Reads every slot record of a namespace with the store's clock.
     *
     * @param namespace a valid namespace name
     * @return the records and {@code storeNow}
     */
    SlotTable read(String namespace);

    /**
     * Takes a slot that is free or expired: {@code fence + 1}, {@code floor = nextFloor},
     * {@code expiresAt = now + ttl}, {@code ceiling = max(expiresAt + tolerance, floor)},
     * {@code nextFloor = ceiling}.
     *
     * @param namespace a valid namespace name
     * @param slot the slot
     * @param owner the requester
     * @param terms ttl and tolerance
     * @return the new lease, or empty when the slot was live
     */
    Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms);

    /**
     * Extends a lease held by the same incarnation with the same fence:
     * {@code expiresAt = max(expiresAt, now + ttl)}; ceiling and next floor follow and never drop.
     *
     * @param lease the lease as last seen
     * @param terms ttl and tolerance
     * @return the renewed lease, or empty when the lease is gone
     */
    Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms);

    /**
     * Gives a lease back: owner cleared, {@code nextFloor = max(floor, min(lastIssued, ceiling))},
     * {@code fence + 1}.
     *
     * @param lease the lease as last seen
     * @param lastIssuedMillis the exact last millisecond the holder issued, or its floor if none
     * @return false when the lease was already gone
     */
    boolean release(SlotLease lease, long lastIssuedMillis);

    /**
     * Reserves the next {@code size} ids of a segment counter in one atomic operation: the counter
     * (0 when the name has none) moves from {@code c} to {@code c + size} and the answer is
     * {@code c + 1 .. c + size}. The namespace must be registered; a namespace record that vanished
     * raises {@link StoreDataLostException}, never a counter restarted at 1. A lost answer wastes the
     * range; it is never handed out again.
     *
     * @param namespace a registered namespace
     * @param name the segment name, checked by {@link Names#require(String)}
     * @param size how many ids, at least 1
     * @return the reserved range
     * @throws UnsupportedOperationException when the store keeps no segment counters
     */
    default SegmentRange reserveSegment(String namespace, String name, long size) {
        throw new UnsupportedOperationException(describe() + " keeps no segment counters");
    }

    /**
     * Hands the unused tail of the last range back: sets the counter to {@code lastIssued} only when
     * it still equals {@code rangeLast} (no later range was reserved since). One conditional operation.
     *
     * @param range the last range this process reserved
     * @param lastIssued the last id issued from it, or {@code range.first() - 1} when none
     * @return true when the counter moved back; false when a later range exists (a gap is left)
     */
    default boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        return false;
    }

    /**
     * Raises a segment counter to at least {@code atLeast}, never lowering it (used by migrations, so
     * that ids continue above what another system issued).
     *
     * @param namespace a registered namespace
     * @param name the segment name
     * @param atLeast the lowest value the counter may hold afterwards
     * @return the counter after the call
     * @throws UnsupportedOperationException when the store keeps no segment counters
     */
    default long raiseSegment(String namespace, String name, long atLeast) {
        throw new UnsupportedOperationException(describe() + " keeps no segment counters");
    }

    /**
     * Reads every segment counter of a namespace: name to the last id reserved.
     *
     * @param namespace a valid namespace name
     * @return the counters, sorted by name; empty when none
     */
    default java.util.SortedMap<String, Long> segments(String namespace) {
        return java.util.Collections.emptySortedMap();
    }

    /** Returns the store's address for messages, never with a password. */
    String describe();

    /**
     * Whether a failover of this store may step a slot record back to an older copy: an automatic
     * failover to a replica that the store does not wait for (Redis behind Sentinel or in a cluster,
     * without {@code waitReplicas}). A runtime on such a store without the takeover guard warns once at
     * start. The default is false.
     *
     * @return true when acknowledged changes may be lost in a failover
     */
    default boolean failoverMayStepBack() {
        return false;
    }

    /** Closes connections the store owns. Idempotent. */
    @Override
    void close();
}
