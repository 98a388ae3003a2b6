package dev.cosid.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;

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

    @org.junit.jupiter.api.Test
    void theZnodesOfThePreviousReleaseKeepWorking() throws Exception {
        String old = ns + "-previous";
        // exactly what the release before layouts wrote: the namespace, its clock and its slots, nothing else
        zookeeper(client -> {
            client.create().creatingParentsIfNeeded().forPath("/cosid/namespaces/" + old, bytes("1024,1000"));
            client.create().forPath("/cosid/namespaces/" + old + "/clock");
            client.create().forPath("/cosid/namespaces/" + old + "/slots");
            client.create().forPath("/cosid/namespaces/" + old + "/slots/0",
                    bytes("\t\tvm:1\t3\t1796000000000\t1795000000000\t1796000001000\t1796000001000"));
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

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
