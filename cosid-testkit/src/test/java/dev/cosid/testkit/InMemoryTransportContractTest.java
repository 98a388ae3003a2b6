package dev.cosid.testkit;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.InMemoryTransport;

class InMemoryTransportContractTest extends CoordinationTransportContract {

    @Override
    protected CoordinationTransport createTransport() {
        return new InMemoryTransport();
    }
}
