package dev.cosid;

import dev.cosid.lease.SlotLease;

/**
 * The runtime's current lease as generators see it: one immutable value published through a
 * volatile field, so the hot path reads it without a lock.
 */
final class Binding {

    /** BOUND issues; LOST refuses until a new slot is bound; CLOSED and FAILED refuse for good. */
    enum State { BOUND, LOST, CLOSED, FAILED }

    final SlotLease lease;
    final State state;
    /** Why the lease was lost or the runtime failed, for the refusal's message; null when none is known. */
    final String reason;

    Binding(SlotLease lease, State state) {
        this(lease, state, null);
    }

    Binding(SlotLease lease, State state, String reason) {
        this.lease = lease;
        this.state = state;
        this.reason = reason;
    }
}
