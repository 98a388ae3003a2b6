package dev.cosid.etcd;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a three-member etcd cluster started by the test, opened by its store URL. */
class EtcdCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(CLUSTER.server().url() + "/app");
    }
}
