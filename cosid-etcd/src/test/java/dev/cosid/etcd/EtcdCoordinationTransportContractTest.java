package dev.cosid.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a three-member etcd cluster started by the test, opened by its store URL. */
class EtcdCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(CLUSTER.server().url() + "/app");
    }

    @Test
    void aMalformedUrlIsRefusedBeforeAnyConnectionWithItsPasswordMasked() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open("etcd://cosid:s3cret@127.0.0.1:99999"));
        assertEquals("'127.0.0.1:99999' in store URL 'etcd://cosid:***@127.0.0.1:99999' is not HOST:PORT; use "
                + "etcd://HOST:PORT[,HOST:PORT...][/PREFIX]", port.getMessage());
    }
}
