package dev.cosid.testkit;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.time.ManualClock;

class InMemoryLeaseStoreContractTest extends LeaseStoreContract {

    private final ManualClock storeClock = new ManualClock(1_800_000_000_000L);

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore(storeClock);
    }

    /** The store restarts empty: every record of every namespace is gone. */
    @Override
    protected void deleteNamespaceRecord(String namespace) {
        store = new InMemoryLeaseStore(storeClock);
    }

    /** Its deletion hook replaces the store, which so forgets that it had registered the namespace. */
    @Override
    protected boolean remembersRegisteredNamespaces() {
        return false;
    }

    /** The store restarts empty and the namespace is registered again: the slot record is gone. */
    @Override
    protected void deleteSlotRecord(String namespace, int slot) {
        NamespaceRecord record = store.namespace(namespace).orElseThrow();
        store = new InMemoryLeaseStore(storeClock);
        store.register(namespace, record);
    }

    @Override
    protected void passStoreTime(long storeInstant) {
        if (storeClock.nowMillis() <= storeInstant) {
            storeClock.set(storeInstant + 1);
        }
    }
}
