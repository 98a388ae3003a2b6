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

/** A store that delegates, counts calls, and fails renewals or every call on demand. */
final class FaultyStore implements LeaseStore {

    private final LeaseStore delegate;
    final AtomicInteger calls = new AtomicInteger();
    volatile boolean failRenewals;
    volatile boolean failEverything;

    FaultyStore(LeaseStore delegate) {
        this.delegate = delegate;
    }

    private void enter(String operation) {
        calls.incrementAndGet();
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
    public SlotTable read(String namespace) {
        enter("read");
        return delegate.read(namespace);
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
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
    public String describe() {
        return "faulty " + delegate.describe();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
