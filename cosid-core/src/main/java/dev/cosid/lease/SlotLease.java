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
 */
public record SlotLease(String namespace, int slot, Owner owner,
                        long fence,
                        long expiresAt,
                        long floor,
                        long ceiling,
                        long storeNow) {

    @Override
    public String toString() {
        return "slot " + slot + " of namespace '" + namespace + "' (fence " + fence + ", window (" + floor + ", "
                + ceiling + "], expires at " + expiresAt + ", owner " + owner + ")";
    }
}
