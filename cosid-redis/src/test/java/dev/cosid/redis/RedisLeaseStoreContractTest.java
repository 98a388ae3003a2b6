package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a Redis server started by the test, opened by URL. */
class RedisLeaseStoreContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<RedisServer> SERVER = new ServerExtension<>(RedisServer::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(SERVER.server().url());
    }

    private static void redis(java.util.function.Consumer<io.lettuce.core.api.sync.RedisCommands<String, String>> work) {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(SERVER.server().url());
        try (io.lettuce.core.api.StatefulRedisConnection<String, String> connection = client.connect()) {
            work.accept(connection.sync());
        } finally {
            client.shutdown();
        }
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) {
        redis(commands -> commands.del("cosid:{" + namespace + "}:namespace"));
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) {
        redis(commands -> commands.hdel("cosid:{" + namespace + "}:slots", Integer.toString(slot)));
    }

    @org.junit.jupiter.api.Test
    void theKeysOfThePreviousReleaseKeepWorking() {
        String old = ns + "-previous";
        // exactly what the release before layouts wrote: a namespace hash and a slots hash, nothing else
        redis(commands -> {
            commands.hset("cosid:{" + old + "}:namespace", java.util.Map.of("limit", "1024", "tolerance", "1000"));
            commands.hset("cosid:{" + old + "}:slots", "0", "\t\tvm:1\t3\t1796000000000\t1795000000000\t"
                    + "1796000001000\t1796000001000");
        });
        assertEquals(new dev.cosid.lease.NamespaceRecord(1024, 1_000),
                store.register(old, new dev.cosid.lease.NamespaceRecord(1024, 1_000)));
        dev.cosid.lease.LeaseTerms terms = new dev.cosid.lease.LeaseTerms(60_000, 1_000);
        dev.cosid.lease.SlotLease lease = store.acquire(old, 0, dev.cosid.lease.Owner.of("upgraded"), terms)
                .orElseThrow();
        assertEquals(1_796_000_001_000L, lease.floor());
        assertEquals(4, lease.fence());
        assertEquals(4, store.renew(lease, terms).orElseThrow().fence());
        dev.cosid.lease.LayoutRecord millis = new dev.cosid.lease.LayoutRecord(1_577_203_200_000L, 1, 41, 10, 12);
        assertEquals(millis, store.registerLayout(old, "order", millis));
    }
}
