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

    private static void zookeeper(ZkWork work) throws Exception {
        try (org.apache.curator.framework.CuratorFramework client = org.apache.curator.framework.CuratorFrameworkFactory
                .newClient(SERVER.server().url().substring("zookeeper://".length()),
                        new org.apache.curator.retry.RetryNTimes(2, 200))) {
            client.start();
            client.blockUntilConnected();
            work.run(client);
        }
    }

    @FunctionalInterface
    private interface ZkWork {
        void run(org.apache.curator.framework.CuratorFramework client) throws Exception;
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws Exception {
        zookeeper(client -> client.delete().deletingChildrenIfNeeded().forPath("/cosid/namespaces/" + namespace));
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws Exception {
        zookeeper(client -> client.delete().forPath("/cosid/namespaces/" + namespace + "/slots/" + slot));
    }
}
