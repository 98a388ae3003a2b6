package dev.cosid;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that delegates, counts calls, and fails renewals or every call on demand; {@link #swap}
 * replaces its data with another store's, as a store that lost its data would.
 */
final class FaultyStore implements LeaseStore {

    private volatile LeaseStore delegate;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failRenewals;
    volatile boolean failEverything;
    /** Thrown by every call while set, such as a {@link dev.cosid.lease.StoreDataLostException}. */
    volatile RuntimeException failWith;
    /** How many of the next layout registrations fail as an unreachable store would. */
    final AtomicInteger failLayouts = new AtomicInteger();
    /** Run before every read, to change the store between two reads of a waiting runtime. */
    volatile Runnable beforeRead;
    /** Run before every acquire, to let another runtime take the slot between a read and the acquire. */
    volatile Runnable beforeAcquire;
    /** Run before every segment reservation, such as a wait that makes the store slow. */
    volatile Runnable beforeReserve;

    FaultyStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    /** Replaces the data: every later call goes to the given store. */
    void swap(LeaseStore replacement) {
        delegate = replacement;
    }

    private void enter(String operation) {
        calls.incrementAndGet();
        if (failWith != null) {
            throw failWith;
        }
        if (failEverything || (failRenewals && operation.equals("renew"))) {
            throw new LeaseStoreException("injected failure of " + operation);
        }
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        enter("register");
        return delegate.register(namespace, proposed);
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        enter("namespace");
        return delegate.namespace(namespace);
    }

    @Override
    public dev.cosid.lease.LayoutRecord registerLayout(String namespace, String name,
                                                       dev.cosid.lease.LayoutRecord proposed) {
        enter("registerLayout");
        if (failLayouts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            throw new LeaseStoreException("injected failure of registerLayout");
        }
        return delegate.registerLayout(namespace, name, proposed);
    }

    @Override
    public SlotTable read(String namespace) {
        Runnable hook = beforeRead;
        if (hook != null) {
            hook.run();
        }
        enter("read");
        return delegate.read(namespace);
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        Runnable hook = beforeAcquire;
        if (hook != null) {
            hook.run();
        }
        enter("acquire");
        return delegate.acquire(namespace, slot, owner, terms);
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        enter("renew");
        return delegate.renew(lease, terms);
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        enter("release");
        return delegate.release(lease, lastIssuedMillis);
    }

    @Override
    public dev.cosid.lease.SegmentRange reserveSegment(String namespace, String name, long size) {
        enter("reserveSegment");
        Runnable hook = beforeReserve;
        if (hook != null) {
            hook.run();
        }
        return delegate.reserveSegment(namespace, name, size);
    }

    @Override
    public boolean returnSegmentTail(dev.cosid.lease.SegmentRange range, long lastIssued) {
        enter("returnSegmentTail");
        return delegate.returnSegmentTail(range, lastIssued);
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        enter("raiseSegment");
        return delegate.raiseSegment(namespace, name, atLeast);
    }

    @Override
    public java.util.SortedMap<String, Long> segments(String namespace) {
        enter("segments");
        return delegate.segments(namespace);
    }

    @Override
    public String describe() {
        return "faulty " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
