package dev.cosid.testkit;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.time.ManualClock;

class InMemoryLeaseStoreContractTest extends LeaseStoreContract {

    private final ManualClock storeClock = new ManualClock(1_800_000_000_000L);

    @Override
    protected LeaseStore createStore() {
        return new InMemoryLeaseStore(storeClock);
    }

    @Override
    protected void passStoreTime(long storeInstant) {
        if (storeClock.nowMillis() <= storeInstant) {
            storeClock.set(storeInstant + 1);
        }
    }
}
