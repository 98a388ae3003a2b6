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

    /** What makes a runtime without the takeover guard warn at start. */
    @Test
    void aSentinelStoreSaysAFailoverMayStepRecordsBackUnlessItWaitsForTheReplica() {
        String url = GROUP.server().url();
        try (LeaseStore store = LeaseStores.open(url)) {
            assertTrue(store.failoverMayStepBack(), url);
        }
        String waiting = url.replace("#", "?waitReplicas=1#");
        try (LeaseStore store = LeaseStores.open(waiting)) {
            assertFalse(store.failoverMayStepBack(), waiting);
        }
        try (LeaseStore store = LeaseStores.open(GROUP.server().primaryUrl())) {
            assertFalse(store.failoverMayStepBack(), "one server named directly fails over to nothing");
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
