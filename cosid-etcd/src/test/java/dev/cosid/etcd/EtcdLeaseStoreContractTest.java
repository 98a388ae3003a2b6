package dev.cosid.etcd;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.DeleteOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a three-member etcd cluster started by the test, opened by URL. */
class EtcdLeaseStoreContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(CLUSTER.server().url());
    }

    private static void delete(String key, boolean withChildren) throws Exception {
        String endpoints = CLUSTER.server().url().substring("etcd://".length());
        try (Client client = Client.builder().endpoints(java.util.Arrays.stream(endpoints.split(","))
                .map(server -> "http://" + server).toArray(String[]::new)).build()) {
            client.getKVClient().delete(bytes(key)).get(10, TimeUnit.SECONDS);
            if (withChildren) {
                client.getKVClient().delete(bytes(key + "/"), DeleteOption.builder().isPrefix(true).build())
                        .get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws Exception {
        delete("/cosid/namespaces/" + namespace, true);
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws Exception {
        delete("/cosid/namespaces/" + namespace + "/slots/" + slot, false);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
