package dev.cosid.lease;

import java.util.List;

/**
 * What {@link SlotChooser} proposes: slots to try in order, or {@code Exhausted}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SlotChoice choice = SlotChooser.choose(table, owner, 1024, OptionalInt.empty());
 * if (choice instanceof SlotChoice.Exhausted exhausted) {
 *     waitUntil(exhausted.earliestExpiry());
 * }
 * }</pre>
 */
public sealed interface SlotChoice {

    /** Returns the slots where a live lease has this owner's key but another incarnation. */
    List<Integer> duplicateOwnerSlots();

    /**
     * Slots to try, best first; each try is one atomic acquire or renew.
     *
     * @param candidates the candidates in preference order
     * @param duplicateOwnerSlots live slots of the same key and another incarnation
     */
    record Candidates(List<Candidate> candidates, List<Integer> duplicateOwnerSlots) implements SlotChoice {
        /** Copies the lists. */
        public Candidates {
            candidates = List.copyOf(candidates);
            duplicateOwnerSlots = List.copyOf(duplicateOwnerSlots);
        }
    }

    /**
     * No slot is free.
     *
     * @param earliestExpiry the earliest {@code expiresAt} of the live leases, store clock, ms
     * @param duplicateOwnerSlots live slots of the same key and another incarnation
     */
    record Exhausted(long earliestExpiry, List<Integer> duplicateOwnerSlots) implements SlotChoice {
        /** Copies the list. */
        public Exhausted {
            duplicateOwnerSlots = List.copyOf(duplicateOwnerSlots);
        }
    }

    /**
     * One slot to try.
     *
     * @param slot the slot
     * @param reason why it is proposed, which also says whether to renew or acquire it
     * @param current the record read, used for a renewal's fence
     */
    record Candidate(int slot, Reason reason, SlotRecord current) {
    }

    /** Why a slot is proposed, in preference order. */
    enum Reason {
        /** This incarnation already holds it: renew, an idempotent retry. */
        HELD,
        /** The configured preferred slot, free. */
        PREFERRED,
        /** Released, and its last owner had the same key. */
        STICKY,
        /** Released, or never used. */
        FREE,
        /** Expired: its holder did not release it, so acquiring it is a takeover. */
        EXPIRED
    }
}
