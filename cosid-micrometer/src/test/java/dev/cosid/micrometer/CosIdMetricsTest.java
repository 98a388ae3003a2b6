package dev.cosid.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters read back through Micrometer with the values the test caused. */
class CosIdMetricsTest {

    private static final long T0 = 1_800_000_000_000L;

    private final ManualClock nodeClock = new ManualClock(T0);
    private final ManualClock storeClock = new ManualClock(T0 - 400);
    private final InMemoryLeaseStore store = new InMemoryLeaseStore(storeClock);
    private final ManualScheduler scheduler = new ManualScheduler(nodeClock);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CosIdMetrics metrics = new CosIdMetrics(registry, "orders");

    private CosIdRuntime start(int bits) {
        CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store(store).ownerKey("node-a")
                .clock(nodeClock).scheduler(scheduler).maxWait(Duration.ZERO).bits(bits).listener(metrics).start();
        metrics.bind(runtime);
        return runtime;
    }

    private double counter(String name, String... tags) {
        return registry.get(name).tags(tags).functionCounter().count();
    }

    private void elapse(Duration extent) {
        nodeClock.advance(extent);
        storeClock.advance(extent);
    }

    @Test
    void idsIssuedAndRefusedAreCountedPerGeneratorAndReason() {
        try (CosIdRuntime runtime = start(10)) {
            SnowflakeId order = runtime.snowflake("order");
            for (int i = 0; i < 7; i++) {
                order.nextId();
            }
            runtime.snowflake("batch").nextIds(3); // created after bind: registered on creation
            elapse(Duration.ofSeconds(45));
            IdUnavailableException refused = assertThrows(IdUnavailableException.class, order::nextId);
            assertEquals(IdUnavailableException.Reason.CEILING, refused.reason());

            assertEquals(7, counter("cosid.ids.issued", "namespace", "orders", "generator", "order"));
            assertEquals(3, counter("cosid.ids.issued", "generator", "batch"));
            assertEquals(1, counter("cosid.ids.refused", "generator", "order", "reason", "ceiling"));
            assertEquals(0, counter("cosid.ids.refused", "generator", "order", "reason", "floor"));
            assertEquals(0, registry.get("cosid.lease.bound").gauge().value());
        }
    }

    @Test
    void theRunwayIsTheTimeUntilTheFirstLayoutOfTheRuntimeRunsOut() {
        try (CosIdRuntime runtime = start(0)) {
            assertEquals((IdLayout.MILLISECOND.runsOutAt().toEpochMilli() - T0) / 1000.0,
                    registry.get("cosid.layout.runway").timeGauge().value(TimeUnit.SECONDS));
            runtime.snowflake("batch", IdLayout.SECOND);
            nodeClock.advance(Duration.ofSeconds(5));
            assertEquals((IdLayout.SECOND.runsOutAt().toEpochMilli() - T0) / 1000.0 - 5,
                    registry.get("cosid.layout.runway").timeGauge().value(TimeUnit.SECONDS));
        }
    }

    @Test
    void segmentReservationsAreCountedPerSegment() {
        try (CosIdRuntime runtime = start(0)) {
            runtime.segment("invoice").nextId(); // the first range is reserved at creation, the next one ahead
            scheduler.runDue();
            assertEquals(1, registry.get("cosid.segment.reservations").tag("segment", "invoice").counter().count());
            assertTrue(registry.get("cosid.segment.reserved").tag("segment", "invoice").counter().count() >= 1000,
                    "at least the default policy's smallest range");
        }
    }

    @Test
    void renewalsLossesAcquisitionsAndTheWindowAreMetered() {
        try (CosIdRuntime runtime = start(0)) {
            assertEquals(1, registry.get("cosid.lease.acquire").timer().count());
            assertEquals(1, registry.get("cosid.lease.bound").gauge().value());
            assertEquals(0, registry.get("cosid.lease.slot").gauge().value());
            assertEquals(1, registry.get("cosid.lease.fence").gauge().value());
            assertEquals(400, registry.get("cosid.clock.skew").timeGauge().value(TimeUnit.MILLISECONDS));
            assertEquals(31_000 - 400,
                    registry.get("cosid.lease.window.remaining").timeGauge().value(TimeUnit.MILLISECONDS));

            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            assertEquals(1, registry.get("cosid.lease.renewals").tag("outcome", "success").counter().count());

            elapse(Duration.ofSeconds(40)); // paused past expiry; another owner takes the only slot
            store.acquire("orders", 0, Owner.of("node-b"), new LeaseTerms(600_000, 1_000)).orElseThrow();
            scheduler.runNext(); // the renewal finds the lease gone
            scheduler.runNext(); // the rebind finds every slot held
            assertEquals(1, registry.get("cosid.lease.lost").counter().count());
            assertEquals(0, registry.get("cosid.lease.bound").gauge().value());
            assertEquals(1, registry.get("cosid.lease.renewals").tag("outcome", "success").counter().count());
        }
    }

    @Test
    void aRenewalThatThrowsIsCountedAsAFailure() {
        CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store(new ThrowingRenewals(store))
                .ownerKey("node-a").clock(nodeClock).scheduler(scheduler).listener(metrics).start();
        try (runtime) {
            metrics.bind(runtime);
            elapse(Duration.ofSeconds(10));
            scheduler.runDue();
            scheduler.runNext();
            assertEquals(2, registry.get("cosid.lease.renewals").tag("outcome", "failure").counter().count());
            assertEquals(0, registry.get("cosid.lease.renewals").tag("outcome", "success").counter().count());
        }
    }

    /** A store whose renewals fail as an unreachable one's do. */
    private static final class ThrowingRenewals implements dev.cosid.lease.LeaseStore {
        private final dev.cosid.lease.LeaseStore delegate;

        ThrowingRenewals(dev.cosid.lease.LeaseStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public dev.cosid.lease.NamespaceRecord register(String namespace, dev.cosid.lease.NamespaceRecord proposed) {
            return delegate.register(namespace, proposed);
        }

        @Override
        public java.util.Optional<dev.cosid.lease.NamespaceRecord> namespace(String namespace) {
            return delegate.namespace(namespace);
        }

        @Override
        public dev.cosid.lease.SlotTable read(String namespace) {
            return delegate.read(namespace);
        }

        @Override
        public java.util.Optional<dev.cosid.lease.SlotLease> acquire(String namespace, int slot, Owner owner,
                                                                    LeaseTerms terms) {
            return delegate.acquire(namespace, slot, owner, terms);
        }

        @Override
        public java.util.Optional<dev.cosid.lease.SlotLease> renew(dev.cosid.lease.SlotLease lease, LeaseTerms terms) {
            throw new dev.cosid.lease.LeaseStoreException("the store is unreachable", null);
        }

        @Override
        public boolean release(dev.cosid.lease.SlotLease lease, long lastIssuedMillis) {
            return delegate.release(lease, lastIssuedMillis);
        }

        @Override
        public String describe() {
            return "throwing renewals";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void bindingToASecondRuntimeIsRefused() {
        try (CosIdRuntime runtime = start(10)) {
            CosIdRuntime other = CosIdRuntime.builder().namespace("orders").store(store).ownerKey("node-b")
                    .clock(nodeClock).scheduler(scheduler).start();
            try (other) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> metrics.bind(other));
                assertEquals("these meters are bound to the runtime of namespace 'orders' already", refused.getMessage());
                assertEquals(runtime.status().lease(), metrics.status().lease());
            }
        }
    }
}
