package dev.cosid.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The slot preference order, as a pure function of one read of the slot table.
 *
 * <ol>
 *   <li>the slot this (key, incarnation) already holds, live;</li>
 *   <li>the preferred slot, if free;</li>
 *   <li>released slots whose last owner had the same key;</li>
 *   <li>the other released or never-used slots, lowest first;</li>
 *   <li>expired slots (a holder that did not release), the same key's first, then lowest first;</li>
 *   <li>none: {@link SlotChoice.Exhausted} with the earliest expiry.</li>
 * </ol>
 * A live lease of the same key and another incarnation is never a candidate. Expired slots come last
 * because taking one over may cost a wait of ttl + tolerance (the takeover guard), and because its
 * holder may be paused rather than gone.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SlotChoice choice = SlotChooser.choose(store.read("orders"), owner, 1024, OptionalInt.of(3));
 * }</pre>
 */
public final class SlotChooser {

    private SlotChooser() {
    }

    /**
     * Orders the candidate slots.
     *
     * @param table one read of the namespace's slots
     * @param me the requester
     * @param limit the number of slots
     * @param preferred the preferred slot, if any
     * @return the candidates, or {@code Exhausted}
     */
    public static SlotChoice choose(SlotTable table, Owner me, int limit, OptionalInt preferred) {
        long now = table.storeNow();
        Map<Integer, SlotRecord> records = table.bySlot();
        List<SlotChoice.Candidate> held = new ArrayList<>();
        List<SlotChoice.Candidate> preferredSlot = new ArrayList<>();
        List<SlotChoice.Candidate> sticky = new ArrayList<>();
        List<SlotChoice.Candidate> free = new ArrayList<>();
        List<SlotChoice.Candidate> expiredSticky = new ArrayList<>();
        List<SlotChoice.Candidate> expired = new ArrayList<>();
        List<Integer> duplicates = new ArrayList<>();
        long earliestExpiry = Long.MAX_VALUE;
        for (int slot = 0; slot < limit; slot++) {
            SlotRecord record = records.getOrDefault(slot, SlotRecord.empty(slot));
            Owner owner = record.owner();
            if (me.equals(owner) && !record.freeAt(now)) {
                held.add(new SlotChoice.Candidate(slot, SlotChoice.Reason.HELD, record));
            } else if (!record.freeAt(now)) {
                earliestExpiry = Math.min(earliestExpiry, record.expiresAt());
                if (owner.key().equals(me.key())) {
                    duplicates.add(slot);
                }
            } else if (preferred.isPresent() && preferred.getAsInt() == slot) {
                preferredSlot.add(new SlotChoice.Candidate(slot, SlotChoice.Reason.PREFERRED, record));
            } else if (LeaseTransitions.takesOver(record)) {
                // this incarnation's own expired lease too: a failover may have stepped it back over a later holder
                (owner.key().equals(me.key()) ? expiredSticky : expired)
                        .add(new SlotChoice.Candidate(slot, SlotChoice.Reason.EXPIRED, record));
            } else if (me.key().equals(record.lastOwnerKey())) {
                sticky.add(new SlotChoice.Candidate(slot, SlotChoice.Reason.STICKY, record));
            } else {
                free.add(new SlotChoice.Candidate(slot, SlotChoice.Reason.FREE, record));
            }
        }
        List<SlotChoice.Candidate> ordered = new ArrayList<>(held);
        ordered.addAll(preferredSlot);
        ordered.addAll(sticky);
        ordered.addAll(free);
        ordered.addAll(expiredSticky);
        ordered.addAll(expired);
        if (ordered.isEmpty()) {
            return new SlotChoice.Exhausted(earliestExpiry, duplicates);
        }
        return new SlotChoice.Candidates(ordered, duplicates);
    }
}
