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
 * A store call never blocks a keeper past a sixth of its ttl: against a real server frozen with SIGSTOP, a
 * renewal on a ttl of 3 s fails within its bound of 500 ms, and the next one after the server runs again counts.
 */
class RedisBoundedCallTest {

    private static final LeaseTerms TERMS = new LeaseTerms(3_000, 500);

    @RegisterExtension
    static final ServerExtension<RedisServer> SERVER = new ServerExtension<>(RedisServer::started);

    private final Clock clock = Clock.system();

    @Test
    void aRenewalOnAFrozenServerFailsWithinASixthOfTheTtl() {
        try (LeaseStore store = LeaseStores.open(SERVER.server().url())) {
            store.register("bounded", new NamespaceRecord(16, 500));
            SlotLease lease = store.acquire("bounded", 0, Owner.of("a"), TERMS).orElseThrow();

            SERVER.server().pause();
            long start = clock.monotonicNanos();
            LeaseStoreException failed;
            try {
                failed = assertThrows(LeaseStoreException.class, () -> store.renew(lease, TERMS));
            } finally {
                SERVER.server().resume();
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            assertTrue(tookMillis >= 500 && tookMillis < 1_000, "the call on the frozen server took " + tookMillis
                    + " ms, not its bound of 500 ms: " + failed.getMessage());
            assertTrue(failed.getMessage().startsWith("cannot renew "), failed.getMessage());

            SlotLease renewed = store.renew(lease, TERMS).orElseThrow();
            assertEquals(lease.fence(), renewed.fence());
        }
    }
}
