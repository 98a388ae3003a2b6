package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code waitReplicas}: a lease write counts only once the replicas have it. Against a real primary
 * and a real replica; the replica is paused with SIGSTOP to make it miss the write.
 *
 * <p>Only the refused write uses the short wait under test. The writes that must succeed wait up to ten
 * seconds: a replica that fsyncs every write ({@code appendfsync always}) on a disk busy with a build can take
 * longer than a few hundred milliseconds to acknowledge, and that is no refusal.
 */
class RedisReplicaTest {

    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);
    private static final int WAIT_MILLIS = 300;
    private static final int PATIENT_WAIT_MILLIS = 10_000;

    @RegisterExtension
    static final ServerExtension<RedisServer> PRIMARY = new ServerExtension<>(RedisServer::started);

    private final Clock clock = Clock.system();

    private static String url(int waitMillis) {
        return PRIMARY.server().url() + "?waitReplicas=1&waitTimeout=" + waitMillis;
    }

    @Test
    void aWriteTheReplicaDidNotAcknowledgeFailsNamingTheReplicasAndTheWaitThenRecovers() {
        try (RedisServer replica = RedisServer.replicaOf(PRIMARY.server());
             LeaseStore patient = LeaseStores.open(url(PATIENT_WAIT_MILLIS));
             LeaseStore store = LeaseStores.open(url(WAIT_MILLIS))) {
            patient.register("replicated", new NamespaceRecord(16, 1_000));
            SlotLease lease = patient.acquire("replicated", 0, Owner.of("a"), TERMS).orElseThrow();

            replica.pause();
            long start = clock.monotonicNanos();
            LeaseStoreException refused = assertThrows(LeaseStoreException.class, () -> store.renew(lease, TERMS));
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            assertTrue(refused.getMessage().contains("only 0 of 1 replicas"), refused.getMessage());
            assertTrue(refused.getMessage().contains("within " + WAIT_MILLIS + " ms"), refused.getMessage());
            assertTrue(waitedMillis >= WAIT_MILLIS, "WAIT returned after " + waitedMillis + " ms");

            replica.resume();
            // the refused renewal was applied on the primary all the same (WAIT rolls nothing back): the lease
            // is still this holder's, and once the replica has caught up a renewal counts again
            SlotLease renewed = patient.renew(lease, TERMS).orElseThrow();
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
            long start = clock.monotonicNanos();
            SlotLease lease = store.acquire("unreplicated", 0, Owner.of("a"), TERMS).orElseThrow();
            assertTrue(store.renew(lease, TERMS).isPresent());
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            replica.resume();
            assertTrue(tookMillis < 5_000, "two writes took " + tookMillis + " ms with the replica paused");
        }
    }
}
