package dev.cosid.lease;

import java.util.Optional;

/**
 * What a store keeps for one slot.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SlotTable table = store.read("orders");
 * table.slots().stream().filter(r -> r.freeAt(table.storeNow())).findFirst();
 * }</pre>
 *
 * @param slot the slot
 * @param owner the holder, or null when the slot is free
 * @param lastOwnerKey the key of the latest holder, or null if it never had one
 * @param fence +1 on every change of ownership
 * @param expiresAt store clock, ms
 * @param floor the current or latest window's floor, ms, excluded
 * @param ceiling the current or latest window's ceiling, ms, included
 * @param nextFloor the floor the next holder gets, ms
 */
public record SlotRecord(int slot, Owner owner, String lastOwnerKey, long fence, long expiresAt,
                         long floor, long ceiling, long nextFloor) {

    /**
     * Returns the record of a slot that was never used: free, fence 0, next floor 0.
     *
     * @param slot the slot
     * @return the empty record
     */
    public static SlotRecord empty(int slot) {
        return new SlotRecord(slot, null, null, 0, 0, 0, 0, 0);
    }

    /** Returns the holder, if any, live or expired. */
    public Optional<Owner> holder() {
        return Optional.ofNullable(owner);
    }

    /**
     * Reports whether the slot may be acquired at a store instant: no owner, or expired.
     *
     * @param storeNow the store's clock, ms
     * @return true when free
     */
    public boolean freeAt(long storeNow) {
        return owner == null || storeNow >= expiresAt;
    }

    /**
     * Returns the lease this record describes, as seen at a store instant.
     *
     * @param namespace the namespace
     * @param storeNow the store's clock, ms
     * @return the lease
     */
    public SlotLease toLease(String namespace, long storeNow) {
        return toLease(namespace, storeNow, false);
    }

    /**
     * Returns the lease an acquire made of this record.
     *
     * @param namespace the namespace
     * @param storeNow the store's clock, ms
     * @param takenOver whether the acquire took the slot from an expired holder
     * @return the lease
     */
    public SlotLease toLease(String namespace, long storeNow, boolean takenOver) {
        return new SlotLease(namespace, slot, owner, fence, expiresAt, floor, ceiling, storeNow, takenOver);
    }
}
