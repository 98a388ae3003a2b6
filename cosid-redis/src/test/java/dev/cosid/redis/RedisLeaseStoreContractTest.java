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
}
