package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.RedisSentinelGroup;
import dev.cosid.testkit.servers.ServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract through Redis Sentinel: a primary, a replica and three sentinels started by the test. */
class RedisSentinelContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<RedisSentinelGroup> GROUP = new ServerExtension<>(RedisSentinelGroup::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(GROUP.server().url());
    }

    /** What makes a runtime turn the takeover guard on by default, and warn when it is turned off. */
    @Test
    void aSentinelStoreWaitsForItsReplicaByDefaultAndOnlyTheUnsafeOptionMayStepRecordsBack() {
        String url = GROUP.server().url();
        try (LeaseStore store = LeaseStores.open(url)) {
            assertFalse(store.failoverMayStepBack(), url);
        }
        String asynchronous = url.replace("#", "?allowRepeatedIdsOnPartition=true&waitReplicas=0#");
        try (LeaseStore store = LeaseStores.open(asynchronous)) {
            assertTrue(store.failoverMayStepBack(), asynchronous);
        }
        try (LeaseStore store = LeaseStores.open(GROUP.server().primaryUrl())) {
            assertFalse(store.failoverMayStepBack(), "one server named directly fails over to nothing");
        }
    }

    /**
     * The default waits for one replica: with the replica frozen (SIGSTOP) a write fails within the wait of
     * one second, naming the replicas, and the keeper never counts on it; once the replica runs again it counts.
     */
    @Test
    void byDefaultAWriteTheReplicaDidNotConfirmFailsWithinTheWait() {
        String ns = "confirmed-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        dev.cosid.lease.LeaseTerms terms = new dev.cosid.lease.LeaseTerms(60_000, 1_000);
        dev.cosid.time.Clock clock = dev.cosid.time.Clock.system();
        try (LeaseStore store = LeaseStores.open(GROUP.server().url())) {
            store.register(ns, new dev.cosid.lease.NamespaceRecord(16, 1_000));
            dev.cosid.lease.SlotLease lease = store.acquire(ns, 0, dev.cosid.lease.Owner.of("a"), terms).orElseThrow();
            GROUP.server().pauseReplicas();
            long start = clock.monotonicNanos();
            dev.cosid.lease.LeaseStoreException refused;
            try {
                refused = org.junit.jupiter.api.Assertions.assertThrows(dev.cosid.lease.LeaseStoreException.class,
                        () -> store.renew(lease, terms));
            } finally {
                GROUP.server().resumeReplicas();
            }
            long tookMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(clock.monotonicNanos() - start);
            assertTrue(refused.getMessage().contains("only 0 of 1 replicas") && refused.getMessage().contains(
                    "within 1000 ms"), refused.getMessage());
            assertTrue(tookMillis >= 1_000 && tookMillis < 4_000, "the refused write took " + tookMillis + " ms");
            GROUP.server().awaitReplicaCaughtUp();
            assertTrue(store.renew(lease, terms).isPresent(), "a renewal counts again once the replica confirms it");
        }
    }

    private static void primary(Consumer<RedisCommands<String, String>> work) {
        RedisClient client = RedisClient.create(GROUP.server().primaryUrl());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            work.accept(connection.sync());
        } finally {
            client.shutdown();
        }
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) {
        primary(commands -> commands.del("cosid:{" + namespace + "}:namespace"));
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) {
        primary(commands -> commands.hdel("cosid:{" + namespace + "}:slots", Integer.toString(slot)));
    }
}
