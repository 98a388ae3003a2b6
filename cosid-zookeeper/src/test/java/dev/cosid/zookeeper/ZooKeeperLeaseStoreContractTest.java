package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.ZooKeeperServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract against a ZooKeeper server started by the test, opened by URL. */
class ZooKeeperLeaseStoreContractTest extends LeaseStoreContract {

    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.started();
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
