package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code waitReplicas}: a lease write counts only once the replicas have it. Against a real primary
 * and a real replica; the replica is paused with SIGSTOP to make it miss the write.
 */
class RedisReplicaTest {

    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);
    private static final int WAIT_MILLIS = 300;

    @RegisterExtension
    static final ServerExtension<RedisServer> PRIMARY = new ServerExtension<>(RedisServer::started);

    private final Clock clock = Clock.system();

    @Test
    void aWriteTheReplicaDidNotAcknowledgeFailsNamingTheReplicasAndTheWaitThenRecovers() {
        try (RedisServer replica = RedisServer.replicaOf(PRIMARY.server());
             LeaseStore store = LeaseStores.open(
                     PRIMARY.server().url() + "?waitReplicas=1&waitTimeout=" + WAIT_MILLIS)) {
            store.register("replicated", new NamespaceRecord(16, 1_000));
            SlotLease lease = store.acquire("replicated", 0, Owner.of("a"), TERMS).orElseThrow();

            replica.pause();
            long start = clock.monotonicNanos();
            LeaseStoreException refused = assertThrows(LeaseStoreException.class, () -> store.renew(lease, TERMS));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            assertTrue(refused.getMessage().contains("only 0 of 1 replicas"), refused.getMessage());
            assertTrue(refused.getMessage().contains("within " + WAIT_MILLIS + " ms"), refused.getMessage());
            assertTrue(waitedMillis >= WAIT_MILLIS, "WAIT returned after " + waitedMillis + " ms");

            replica.resume();
            // the resumed replica first catches up; on a loaded machine that can take longer than one WAIT, so
            // renew as the keeper does, again until the replica acknowledges (bounded)
            AtomicReference<SlotLease> renewedOnce = new AtomicReference<>();
            Await.until(() -> {
                try {
                    store.renew(lease, TERMS).ifPresent(renewedOnce::set);
                    return true;
                } catch (LeaseStoreException stillBehind) {
                    return false;
                }
            }, Duration.ofSeconds(30), "a renewal the resumed replica acknowledges");
            SlotLease renewed = renewedOnce.get();
            assertNotNull(renewed, "the lease is still held after the replica resumed");
            assertEquals(lease.fence(), renewed.fence());
            assertTrue(renewed.ceiling() >= lease.ceiling());
        }
    }

    @Test
    void withoutWaitReplicasAPausedReplicaDoesNotHoldWritesBack() {
        try (RedisServer replica = RedisServer.replicaOf(PRIMARY.server());
             LeaseStore store = LeaseStores.open(PRIMARY.server().url())) {
            store.register("unreplicated", new NamespaceRecord(16, 1_000));
            replica.pause();
            SlotLease lease = store.acquire("unreplicated", 0, Owner.of("a"), TERMS).orElseThrow();
            assertTrue(store.renew(lease, TERMS).isPresent());
            replica.resume();
        }
    }
}
