package dev.cosid.simulation;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;

/**
 * The real in-memory store behind a faulty network: a call may be lost before it is applied, applied
 * with its answer lost, or delayed (it reaches the store, and reads the store's clock, late).
 */
class SimStore implements LeaseStore {

    private final LeaseStore store;
    private final SimClock storeClock;
    private final Random random;
    private final Simulation.Counters counters;
    private double lossBefore;
    private double lossAfter;
    private double delay;
    private long maxDelayMillis;

    SimStore(LeaseStore store, SimClock storeClock, Random random, Simulation.Counters counters) {
        this.store = store;
        this.storeClock = storeClock;
        this.random = random;
        this.counters = counters;
    }

    /** Sets the fault rates for the calls that follow. */
    void faults(double lossBefore, double lossAfter, double delay, long maxDelayMillis) {
        this.lossBefore = lossBefore;
        this.lossAfter = lossAfter;
        this.delay = delay;
        this.maxDelayMillis = maxDelayMillis;
    }

    private <T> T call(String what, Supplier<T> operation) {
        if (random.nextDouble() < lossBefore) {
            counters.fault("store call lost before applied");
            throw new LeaseStoreException("simulated: " + what + " lost before it reached the store");
        }
        long late = random.nextDouble() < delay ? 1 + random.nextInt((int) Math.max(1, maxDelayMillis)) : 0;
        if (late > 0) {
            counters.fault("store call delayed");
            storeClock.step(late);
        }
        T answer;
        try {
            answer = operation.get();
        } finally {
            if (late > 0) {
                storeClock.step(-late);
            }
        }
        if (random.nextDouble() < lossAfter) {
            counters.fault("store call applied, answer lost");
            throw new LeaseStoreException("simulated: the answer to " + what + " was lost");
        }
        return answer;
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        return call("register", () -> store.register(namespace, proposed));
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        return call("namespace", () -> store.namespace(namespace));
    }

    @Override
    public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        return call("registerLayout", () -> store.registerLayout(namespace, name, proposed));
    }

    @Override
    public SlotTable read(String namespace) {
        return call("read", () -> store.read(namespace));
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        return call("acquire", () -> store.acquire(namespace, slot, owner, terms));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        return call("renew", () -> store.renew(lease, terms));
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        return call("release", () -> store.release(lease, lastIssuedMillis));
    }

    @Override
    public String describe() {
        return "simulated " + store.describe();
    }

    @Override
    public void close() {
        // the store outlives every node
    }
}
