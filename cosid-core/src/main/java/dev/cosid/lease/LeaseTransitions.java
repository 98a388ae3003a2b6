package dev.cosid.lease;

import java.util.Optional;

/**
 * The store-side conditions and changes of a slot record, as pure functions of the store's now.
 *
 * <p>{@code floor}, {@code ceiling} and {@code nextFloor} only grow whatever {@code now} does, except
 * that a clean release may lower {@code nextFloor} to, and not below, the holder's exact last issued
 * millisecond. Stores that cannot run these conditions in the database (the in-memory store, tests,
 * the simulator) call them directly; SQL and script stores mirror them statement for statement.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Optional<SlotRecord> taken = LeaseTransitions.acquire(current, owner, storeNow, terms);
 * }</pre>
 */
public final class LeaseTransitions {

    private LeaseTransitions() {
    }

    /**
     * Returns the record of a slot that has none yet: free, fence 0, and the next floor the terms give.
     *
     * @param slot the slot
     * @param now the store's clock, ms
     * @param terms the terms, whose cold-start guard decides the next floor
     * @return the record to apply a transition to
     */
    public static SlotRecord fresh(int slot, long now, LeaseTerms terms) {
        return new SlotRecord(slot, null, null, 0, 0, 0, 0, terms.initialNextFloor(now));
    }

    /**
     * Acquires a slot that is free or expired. Taking it from an expired holder with the takeover guard
     * starts the window at {@code now + ttl + tolerance} or later.
     *
     * @param current the slot's record
     * @param owner the requester
     * @param now the store's clock, ms
     * @param terms ttl, tolerance and the takeover guard
     * @return the new record, or empty when the slot is live
     */
    public static Optional<SlotRecord> acquire(SlotRecord current, Owner owner, long now, LeaseTerms terms) {
        if (!current.freeAt(now)) {
            return Optional.empty();
        }
        long floor = terms.takeoverGuard() && takesOver(current)
                ? Math.max(current.nextFloor(), terms.guardFloor(now))
                : current.nextFloor();
        long expiresAt = saturatedAdd(now, terms.ttlMillis());
        long ceiling = Math.max(saturatedAdd(expiresAt, terms.toleranceMillis()), floor);
        return Optional.of(new SlotRecord(current.slot(), owner, owner.key(), current.fence() + 1, expiresAt,
                floor, ceiling, ceiling));
    }

    /**
     * Reports whether acquiring a free record takes it over from a holder that did not release it: it
     * still names an owner, whose lease expired. A released record and a record never used name none.
     *
     * @param current the slot's record, free at the store's now
     * @return true for a takeover
     */
    public static boolean takesOver(SlotRecord current) {
        return current.owner() != null;
    }

    /**
     * Renews a lease held by the same incarnation with the same fence, live or expired.
     *
     * @param current the slot's record
     * @param owner the holder
     * @param fence the fence the holder knows
     * @param now the store's clock, ms
     * @param terms ttl and tolerance
     * @return the renewed record, or empty when the lease is gone
     */
    public static Optional<SlotRecord> renew(SlotRecord current, Owner owner, long fence, long now, LeaseTerms terms) {
        if (!holds(current, owner, fence)) {
            return Optional.empty();
        }
        long expiresAt = Math.max(current.expiresAt(), saturatedAdd(now, terms.ttlMillis()));
        long ceiling = Math.max(current.ceiling(),
                Math.max(saturatedAdd(expiresAt, terms.toleranceMillis()), current.floor()));
        return Optional.of(new SlotRecord(current.slot(), current.owner(), current.lastOwnerKey(), fence, expiresAt,
                current.floor(), ceiling, ceiling));
    }

    /**
     * Releases a lease held by the same incarnation with the same fence.
     *
     * @param current the slot's record
     * @param owner the holder
     * @param fence the fence the holder knows
     * @param lastIssuedMillis the holder's exact last issued millisecond
     * @return the released record, or empty when the lease is gone
     */
    public static Optional<SlotRecord> release(SlotRecord current, Owner owner, long fence, long lastIssuedMillis) {
        if (!holds(current, owner, fence)) {
            return Optional.empty();
        }
        long nextFloor = Math.max(current.floor(), Math.min(lastIssuedMillis, current.ceiling()));
        return Optional.of(new SlotRecord(current.slot(), null, current.lastOwnerKey(), fence + 1,
                current.expiresAt(), current.floor(), current.ceiling(), nextFloor));
    }

    private static boolean holds(SlotRecord current, Owner owner, long fence) {
        return current.owner() != null && current.owner().equals(owner) && current.fence() == fence;
    }

    /**
     * Adds without wrapping past {@link Long#MAX_VALUE}.
     *
     * @param a a value
     * @param b a non-negative value
     * @return {@code a + b}, or {@link Long#MAX_VALUE} on overflow
     */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : sum;
    }
}
