package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * What the keeper logs: one line for each expected event (a store that fails, a lost lease), a stack
 * trace only for what is unexpected (a bug in a store or a listener).
 */
class KeeperLogTest {

    private static final long T0 = 1_800_000_000_000L;

    /** Each test its own namespace, so the recorded events of other tests never match. */
    private final String namespace = "log-" + UUID.randomUUID().toString().substring(0, 8);
    private final ManualClock clock = new ManualClock(T0);
    private final InMemoryLeaseStore memory = new InMemoryLeaseStore(clock);
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    private volatile Supplier<RuntimeException> failure;

    private final LeaseStore store = new LeaseStore() {
        private void enter() {
            Supplier<RuntimeException> next = failure;
            if (next != null) {
                throw next.get();
            }
        }

        @Override
        public NamespaceRecord register(String ns, NamespaceRecord proposed) {
            return memory.register(ns, proposed);
        }

        @Override
        public Optional<NamespaceRecord> namespace(String ns) {
            return memory.namespace(ns);
        }

        @Override
        public SlotTable read(String ns) {
            enter();
            return memory.read(ns);
        }

        @Override
        public Optional<SlotLease> acquire(String ns, int slot, Owner owner, LeaseTerms terms) {
            enter();
            return memory.acquire(ns, slot, owner, terms);
        }

        @Override
        public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
            enter();
            return memory.renew(lease, terms);
        }

        @Override
        public boolean release(SlotLease lease, long lastIssuedMillis) {
            enter();
            return memory.release(lease, lastIssuedMillis);
        }

        @Override
        public String describe() {
            return "flaky memory";
        }

        @Override
        public void close() {
        }
    };

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder().namespace(namespace).store(store).ownerKey("node-a").clock(clock)
                .scheduler(scheduler).maxWait(Duration.ZERO);
    }

    private List<RecordingLogs.Event> logged(Level atLeast) {
        return RecordingLogs.containing("namespace '" + namespace + "'").stream()
                .filter(event -> event.level().toInt() >= atLeast.toInt()).toList();
    }

    @Test
    void aStoreThatFailsForAWhileLogsOneWarningLineAndOneLineWhenItRecovers() {
        long confirmed;
        try (CosIdRuntime runtime = builder().start()) {
            confirmed = runtime.lease().ceiling();
            failure = () -> new LeaseStoreException("cannot reach the store: connection refused");
            clock.advance(Duration.ofSeconds(10));
            for (int attempt = 0; attempt < 6; attempt++) {
                scheduler.runNext();
            }
            failure = null;
            scheduler.runNext();
            assertEquals(T0 + 10_000 + 100 + 200 + 400 + 800 + 1600 + 3200 + 31_000, runtime.lease().ceiling());
        }
        List<RecordingLogs.Event> warnings = logged(Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertEquals("cut off from flaky memory since " + java.time.Instant.ofEpochMilli(T0 + 10_000) + ": renewing "
                + "slot 0 of namespace '" + namespace + "' failed: cannot reach the store: connection refused; issuing "
                + "stops at the last confirmed ceiling " + java.time.Instant.ofEpochMilli(confirmed) + "; retrying "
                + "with back-off up to 5000 ms, further failures at debug", warnings.get(0).message());
        assertNull(warnings.get(0).thrown(), "an expected failure has no stack trace");
        assertEquals(5, logged(Level.DEBUG).stream().filter(e -> e.level() == Level.DEBUG).count(),
                "the retries are debug lines");
        assertTrue(logged(Level.INFO).stream().anyMatch(event -> event.message().equals(
                "flaky memory answers again: renewed slot 0 of namespace '" + namespace + "' after 6 failed attempts "
                        + "(6300 ms cut off)")), logged(Level.INFO).toString());
    }

    @Test
    void aKeeperWhoseLastCallFailedDoesNotReleaseAtCloseAndTheSlotExpiresInstead() {
        try (CosIdRuntime runtime = builder().start()) {
            failure = () -> new LeaseStoreException("cannot reach the store: connection refused");
            clock.advance(Duration.ofSeconds(10));
            scheduler.runNext();
            failure = () -> new IllegalStateException("a release was tried at close");
        }
        failure = null;
        assertTrue(memory.read(namespace).bySlot().get(0).owner() != null, "the slot is still held until its expiry");
        assertTrue(logged(Level.INFO).stream().anyMatch(event -> event.message().startsWith("not releasing ")
                && event.message().endsWith(": the last call to flaky memory failed; the slot frees up at its expiry")),
                logged(Level.INFO).toString());
    }

    @Test
    void anUnexpectedExceptionIsAnErrorWithItsStackTrace() {
        try (CosIdRuntime runtime = builder().start()) {
            failure = () -> new IllegalStateException("a bug in the store");
            clock.advance(Duration.ofSeconds(10));
            scheduler.runNext();
            failure = null;
        }
        List<RecordingLogs.Event> errors = logged(Level.ERROR);
        assertEquals(1, errors.size(), errors.toString());
        assertEquals("renewing slot 0 of namespace '" + namespace + "' failed unexpectedly (attempt 1); retrying in "
                + "100 ms", errors.get(0).message());
        assertInstanceOf(IllegalStateException.class, errors.get(0).thrown());
    }

    @Test
    void aLostLeaseIsOneWarningLine() {
        try (CosIdRuntime runtime = builder().bits(1).start()) {
            clock.advance(Duration.ofSeconds(40)); // paused past its expiry; another node takes the slot
            memory.acquire(namespace, 0, Owner.of("node-b"), new LeaseTerms(600_000, 1_000)).orElseThrow();
            scheduler.runNext(); // the renewal finds the lease gone
            scheduler.runNext(); // the rebind takes slot 1
            assertEquals(1, runtime.lease().slot());
        }
        List<RecordingLogs.Event> warnings = logged(Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).message().startsWith("lost the lease: slot 0 of namespace '" + namespace + "'"),
                warnings.get(0).message());
        assertNull(warnings.get(0).thrown());
    }

    @Test
    void aReleaseTheStoreRefusesIsOneWarningLine() {
        CosIdRuntime runtime = builder().start();
        failure = () -> new LeaseStoreException("cannot reach the store");
        runtime.close();
        failure = null;
        List<RecordingLogs.Event> warnings = logged(Level.WARN);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).message().endsWith(": cannot reach the store; the slot frees up at its expiry"),
                warnings.get(0).message());
        assertNull(warnings.get(0).thrown());
    }

    @Test
    void aThrowingListenerIsAWarningWithTheListenersStackTrace() {
        CosIdListener throwing = new CosIdListener() {
            @Override
            public void onSlotAcquired(SlotLease lease) {
                throw new IllegalStateException("listener bug in " + lease.namespace());
            }
        };
        try (CosIdRuntime runtime = builder().listener(throwing).start()) {
            assertEquals(0, runtime.lease().slot());
        }
        List<RecordingLogs.Event> thrown = RecordingLogs.containing("CosIdListener.onSlotAcquired threw").stream()
                .filter(event -> event.thrown() != null && event.thrown().getMessage().contains(namespace)).toList();
        assertEquals(1, thrown.size(), thrown.toString());
        assertEquals(Level.WARN, thrown.get(0).level());
    }
}
