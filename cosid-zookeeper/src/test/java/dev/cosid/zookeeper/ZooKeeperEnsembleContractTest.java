package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a three-server ZooKeeper ensemble, the connect string naming all three. */
class ZooKeeperEnsembleContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<ZooKeeperEnsemble> ENSEMBLE = new ServerExtension<>(ZooKeeperEnsemble::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(ENSEMBLE.server().url());
    }

    private static void zookeeper(ZkWork work) throws Exception {
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(
                ENSEMBLE.server().url().substring("zookeeper://".length()), new RetryNTimes(2, 200))) {
            client.start();
            client.blockUntilConnected();
            work.run(client);
        }
    }

    @FunctionalInterface
    private interface ZkWork {
        void run(CuratorFramework client) throws Exception;
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
