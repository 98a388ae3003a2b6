package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a replicated store must survive: its primary killed with SIGKILL and its replica promoted, while
 * one URL names the group (Redis Sentinel, a two-host PostgreSQL URL). A lease the replica had before the
 * kill renews on the new primary with its fence, new slots are acquired there, a segment counter continues
 * past its last range, and a running generator keeps its slot and keeps issuing.
 *
 * <p>A store's test extends this class, starts its group once, and supplies the URL, the failover, a wait
 * until the replica holds every write so far (without it, an asynchronous replica may miss the last
 * write; that case is the takeover guard's, not this contract's), and the rejoin that follows each test.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * class RedisSentinelFailoverTest extends StoreFailoverContract {
 *     protected String storeUrl() { return group.url(); }
 *     protected Duration failover() { return group.failover(); }
 *     protected void awaitReplicated() { group.awaitReplicaCaughtUp(); }
 *     protected void rejoin() { group.rejoin(); }
 * }
 * }</pre>
 */
public abstract class StoreFailoverContract {

    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);
    /** How long the store may take to answer on the new primary after the promotion. */
    private static final Duration RECOVERY = Duration.ofSeconds(30);

    private final Clock clock = Clock.system();

    /** Returns the URL that names the group. */
    protected abstract String storeUrl();

    /**
     * Kills the primary with SIGKILL and waits until the replica is promoted.
     *
     * @return how long that took
     */
    protected abstract Duration failover();

    /** Waits until the replica holds every write the primary has acknowledged so far. */
    protected abstract void awaitReplicated();

    /** Brings the killed server back as the new primary's replica. */
    protected abstract void rejoin();

    @AfterEach
    void rejoinTheKilledServer() {
        rejoin();
    }

    private static String namespace(String test) {
        return test + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Calls the store until it answers, as a keeper's next tick would; the first failure names the fault. */
    private <T> T onceItAnswers(String what, java.util.function.Supplier<T> call) {
        long deadline = clock.monotonicNanos() + RECOVERY.toNanos();
        AtomicReference<LeaseStoreException> last = new AtomicReference<>();
        while (clock.monotonicNanos() < deadline) {
            try {
                return call.get();
            } catch (LeaseStoreException e) {
                last.set(e);
                Await.elapse(Duration.ofMillis(100));
            }
        }
        throw new AssertionError("the store did not " + what + " within " + RECOVERY + " after the failover",
                last.get());
    }

    @Test
    void aReplicatedLeaseRenewsOnThePromotedReplicaWithItsFenceAndNewSlotsAreAcquiredThere() {
        String ns = namespace("failover");
        try (LeaseStore store = LeaseStores.open(storeUrl())) {
            store.register(ns, new NamespaceRecord(16, 1_000));
            SlotLease held = store.acquire(ns, 0, Owner.of("holder"), TERMS).orElseThrow();
            SegmentRange reserved = store.reserveSegment(ns, "invoice", 100);
            awaitReplicated();

            Duration promotion = failover();
            long start = clock.monotonicNanos();
            Optional<SlotLease> renewed = onceItAnswers("renew", () -> store.renew(held, TERMS));
            long recoveredMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            System.out.println(getClass().getSimpleName() + ": promotion took " + promotion.toMillis()
                    + " ms, the first renewal on the new primary " + recoveredMillis + " ms more");

            assertTrue(renewed.isPresent(), "the replicated lease " + held + " was not found on the new primary");
            assertEquals(held.fence(), renewed.get().fence());
            assertTrue(renewed.get().expiresAt() >= held.expiresAt());
            SlotLease next = store.acquire(ns, 1, Owner.of("newcomer"), TERMS).orElseThrow();
            assertEquals(1, next.slot());
            assertTrue(store.acquire(ns, 0, Owner.of("newcomer"), TERMS).isEmpty(), "slot 0 is still held");
            assertEquals(2, store.read(ns).slots().size());
            SegmentRange after = onceItAnswers("reserve a segment", () -> store.reserveSegment(ns, "invoice", 100));
            assertTrue(after.first() > reserved.last(), "the promoted replica handed out " + after + " again after "
                    + reserved);
        }
    }

    @Test
    void aRunningGeneratorKeepsItsSlotAndKeepsIssuingThroughTheFailover() {
        String ns = namespace("running");
        AtomicLong renewals = new AtomicLong();
        CosIdListener listener = new CosIdListener() {
            @Override
            public void onRenewed(SlotLease lease) {
                renewals.incrementAndGet();
            }
        };
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace(ns).store(storeUrl()).ttl(Duration.ofSeconds(9))
                .tolerance(Duration.ofSeconds(1)).maxWait(Duration.ZERO).listener(listener).start();
             IdPump pump = IdPump.start("failover", runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000 && renewals.get() > 0, Duration.ofSeconds(20),
                    "ids and a renewal before the failover");
            awaitReplicated();

            failover();
            long renewedBefore = renewals.get();
            long issuedBefore = pump.issued();
            Await.until(() -> renewals.get() > renewedBefore, RECOVERY, "a renewal on the new primary");
            Await.until(() -> pump.issued() > issuedBefore + 1_000, Duration.ofSeconds(10), "ids after the failover");
            pump.close();

            assertEquals(before.slot(), runtime.lease().slot());
            assertEquals(before.fence(), runtime.lease().fence(), "the slot was kept, not taken again");
            Set<Long> seen = new HashSet<>();
            for (long id : pump.ids()) {
                assertTrue(seen.add(id), "id " + id + " was issued twice");
            }
        }
    }
}
