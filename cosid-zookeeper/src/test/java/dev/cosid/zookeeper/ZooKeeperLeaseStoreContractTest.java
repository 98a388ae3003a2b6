package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.ZooKeeperServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a ZooKeeper server started by the test, opened by URL. */
class ZooKeeperLeaseStoreContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<ZooKeeperServer> SERVER = new ServerExtension<>(ZooKeeperServer::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(SERVER.server().url());
    }
}
