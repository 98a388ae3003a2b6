package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The takeover guard is on by default exactly where the store says a failover may step records back (Redis
 * Cluster, an asynchronous Sentinel setup); set explicitly, the setting wins.
 */
class TakeoverGuardDefaultTest {

    /** An in-memory store that says whether its failover may step back and keeps the terms of the last acquire. */
    private static final class Replicated implements LeaseStore {
        final InMemoryLeaseStore memory = new InMemoryLeaseStore();
        final boolean stepsBack;
        final AtomicReference<LeaseTerms> terms = new AtomicReference<>();

        Replicated(boolean stepsBack) {
            this.stepsBack = stepsBack;
        }

        @Override
        public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
            return memory.register(namespace, proposed);
        }

        @Override
        public Optional<NamespaceRecord> namespace(String namespace) {
            return memory.namespace(namespace);
        }

        @Override
        public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
            return memory.registerLayout(namespace, name, proposed);
        }

        @Override
        public SlotTable read(String namespace) {
            return memory.read(namespace);
        }

        @Override
        public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
            this.terms.set(terms);
            return memory.acquire(namespace, slot, owner, terms);
        }

        @Override
        public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
            return memory.renew(lease, terms);
        }

        @Override
        public boolean release(SlotLease lease, long lastIssuedMillis) {
            return memory.release(lease, lastIssuedMillis);
        }

        @Override
        public String describe() {
            return "replicated memory";
        }

        @Override
        public boolean failoverMayStepBack() {
            return stepsBack;
        }

        @Override
        public void close() {
        }
    }

    private static boolean guarded(Replicated store, Boolean explicit) {
        CosIdRuntime.Builder builder = CosIdRuntime.builder().namespace("guard-default").store(store)
                .ttl(Duration.ofSeconds(3)).tolerance(Duration.ofMillis(500));
        if (explicit != null) {
            builder.takeoverGuard(explicit);
        }
        try (CosIdRuntime runtime = builder.start()) {
            return store.terms.get().takeoverGuard();
        }
    }

    @Test
    void aStoreWhoseFailoverMayStepBackGetsTheGuardUnlessTurnedOff() {
        assertEquals(true, guarded(new Replicated(true), null));
        assertEquals(false, guarded(new Replicated(true), false));
        assertEquals(true, guarded(new Replicated(true), true));
    }

    @Test
    void aStoreThatNeverStepsBackKeepsTheGuardOffUnlessTurnedOn() {
        assertEquals(false, guarded(new Replicated(false), null));
        assertEquals(true, guarded(new Replicated(false), true));
    }
}
