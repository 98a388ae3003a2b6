package dev.cosid.redis;

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
}
