package dev.cosid.simulation;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import java.util.Optional;

/** A store that passes every call on, for tests to override one operation with a deliberate bug. */
class SimStoreDelegate implements LeaseStore {

    private final LeaseStore store;

    SimStoreDelegate(LeaseStore store) {
        this.store = store;
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        return store.register(namespace, proposed);
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        return store.namespace(namespace);
    }

    @Override
    public SlotTable read(String namespace) {
        return store.read(namespace);
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        return store.acquire(namespace, slot, owner, terms);
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        return store.renew(lease, terms);
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        return store.release(lease, lastIssuedMillis);
    }

    @Override
    public dev.cosid.lease.SegmentRange reserveSegment(String namespace, String name, long size) {
        return store.reserveSegment(namespace, name, size);
    }

    @Override
    public boolean returnSegmentTail(dev.cosid.lease.SegmentRange range, long lastIssued) {
        return store.returnSegmentTail(range, lastIssued);
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        return store.raiseSegment(namespace, name, atLeast);
    }

    @Override
    public java.util.SortedMap<String, Long> segments(String namespace) {
        return store.segments(namespace);
    }

    @Override
    public String describe() {
        return store.describe();
    }

    @Override
    public void close() {
        store.close();
    }
}
