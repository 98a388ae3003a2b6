package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import java.time.Duration;

/** A keeper whose binding a test sets: the window a generator checks its ids against. */
final class HandKeeper extends SlotKeeper {

    HandKeeper(int slot, long floor, long ceiling) {
        super(null, null);
        bind(slot, floor, ceiling);
    }

    void bind(int slot, long floor, long ceiling) {
        binding = new Binding(new SlotLease("shop", slot, Owner.of("me"), 1, ceiling - 1, floor, ceiling, floor),
                Binding.State.BOUND);
    }

    @Override
    void start(Duration acquireTimeout) {
    }

    @Override
    void step() {
    }

    @Override
    void giveBack(SlotLease lease, long lastIssuedMillis) {
    }

    @Override
    LayoutRecord registerLayout(String name, LayoutRecord proposed) {
        return proposed;
    }
}
