package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.SegmentRange;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code waitReplicas} holds for segment counters as for leases: a reservation, a raise and a tail
 * return count only once the replica has them. Against a real primary and a real replica, paused with
 * SIGSTOP to make it miss the write.
 */
class RedisSegmentReplicaTest {

    private static final int WAIT_MILLIS = 300;
    private static final int PATIENT_WAIT_MILLIS = 10_000;

    @RegisterExtension
    static final ServerExtension<RedisServer> PRIMARY = new ServerExtension<>(RedisServer::started);

    private static String url(int waitMillis) {
        return PRIMARY.server().url() + "?waitReplicas=1&waitTimeout=" + waitMillis;
    }

    @Test
    void aReservationTheReplicaDidNotAcknowledgeFailsAndItsRangeIsNeverHandedOutAgain() {
        try (RedisServer replica = RedisServer.replicaOf(PRIMARY.server());
             LeaseStore patient = LeaseStores.open(url(PATIENT_WAIT_MILLIS));
             LeaseStore store = LeaseStores.open(url(WAIT_MILLIS))) {
            patient.register("segments", new NamespaceRecord(16, 1_000));
            store.register("segments", new NamespaceRecord(16, 1_000));
            SegmentRange first = patient.reserveSegment("segments", "invoice", 10);
            assertEquals(1, first.first());

            replica.pause();
            LeaseStoreException refused;
            try {
                refused = assertThrows(LeaseStoreException.class,
                        () -> store.reserveSegment("segments", "invoice", 10));
                assertThrows(LeaseStoreException.class, () -> store.raiseSegment("segments", "migrated", 500));
            } finally {
                replica.resume();
            }
            assertTrue(refused.getMessage().contains("only 0 of 1 replicas"), refused.getMessage());
            assertTrue(refused.getMessage().contains("segment 'invoice'"), refused.getMessage());

            // WAIT rolls nothing back: the refused range was taken on the primary and is wasted, never reissued
            SegmentRange next = patient.reserveSegment("segments", "invoice", 10);
            assertEquals(new SegmentRange("segments", "invoice", 21, 30), next);
            assertTrue(patient.returnSegmentTail(next, 24));
            assertEquals(25, patient.reserveSegment("segments", "invoice", 1).first());
            assertEquals(500, patient.raiseSegment("segments", "migrated", 1), "the refused raise was applied");
        }
    }
}
