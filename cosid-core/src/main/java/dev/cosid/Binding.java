package dev.cosid;

import dev.cosid.lease.SlotLease;

/**
 * The runtime's current lease as generators see it: one immutable value published through a
 * volatile field, so the hot path reads it without a lock.
 */
final class Binding {

    enum State { BOUND, LOST, CLOSED }

    final SlotLease lease;
    final State state;

    Binding(SlotLease lease, State state) {
        this.lease = lease;
        this.state = state;
    }
}
