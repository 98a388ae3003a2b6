package dev.cosid.testkit;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.InMemoryTransport;

class InMemoryTransportContractTest extends CoordinationTransportContract {

    @Override
    protected CoordinationTransport createTransport() {
        return new InMemoryTransport();
    }

    /** In memory a round costs microseconds: play many. */
    @Override
    protected int simultaneousChallengeRounds() {
        return 200;
    }

    /** The in-memory transport is its own cluster: a second client is the same transport. */
    @Override
    protected CoordinationTransport createPeer() {
        return transport;
    }
}
