package dev.cosid.server;

import java.util.concurrent.atomic.AtomicInteger;

/** What every connection of a server shares: the requests being answered, and whether it drains. */
final class ServerState {

    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;

    void requestStarted() {
        inFlight.incrementAndGet();
    }

    void requestFinished() {
        inFlight.decrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }

    boolean draining() {
        return draining;
    }

    void drain() {
        draining = true;
    }
}
