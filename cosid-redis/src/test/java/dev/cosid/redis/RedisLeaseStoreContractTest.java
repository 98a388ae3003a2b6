package dev.cosid.redis;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract against a Redis server started by the test, opened by URL. */
class RedisLeaseStoreContractTest extends LeaseStoreContract {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.started();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(server.url());
    }
}
