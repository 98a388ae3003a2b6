package dev.cosid.lease;

/**
 * The exclusive right to issue timestamps in the window {@code (floor, ceiling]} on one slot.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SlotLease lease = runtime.lease();
 * boolean mayIssue = lease.floor() < t && t <= lease.ceiling();
 * }</pre>
 *
 * @param namespace the namespace of the slot
 * @param slot the slot
 * @param owner the holder
 * @param fence +1 on every change of ownership; renewals keep it
 * @param expiresAt store clock, ms: when someone else may take the slot
 * @param floor ms, excluded: this holder's timestamps are greater
 * @param ceiling ms, included: this holder's timestamps are at most this
 * @param storeNow the store's clock when it answered, ms
 * @param takenOver whether the acquire that granted it took the slot from a holder that did not
 *     release it (an expired lease), rather than a released or never-used record; false for a renewal
 */
public record SlotLease(String namespace, int slot, Owner owner,
                        long fence,
                        long expiresAt,
                        long floor,
                        long ceiling,
                        long storeNow,
                        boolean takenOver) {

    /**
     * Creates a lease that was not taken over.
     *
     * @param namespace the namespace of the slot
     * @param slot the slot
     * @param owner the holder
     * @param fence the fence
     * @param expiresAt store clock, ms
     * @param floor ms, excluded
     * @param ceiling ms, included
     * @param storeNow the store's clock when it answered, ms
     */
    public SlotLease(String namespace, int slot, Owner owner, long fence, long expiresAt, long floor, long ceiling,
                     long storeNow) {
        this(namespace, slot, owner, fence, expiresAt, floor, ceiling, storeNow, false);
    }

    @Override
    public String toString() {
        return "slot " + slot + " of namespace '" + namespace + "' (fence " + fence + ", window (" + floor + ", "
                + ceiling + "], expires at " + expiresAt + ", owner " + owner + (takenOver ? ", taken over" : "") + ")";
    }
}
