package dev.cosid.etcd;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a three-member etcd cluster (every member at once). */
class EtcdFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    @Override
    protected ServerProcess server() {
        return CLUSTER.server();
    }

    @Override
    protected String storeUrl() {
        return CLUSTER.server().url();
    }
}
