package dev.cosid.zookeeper;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a three-server ZooKeeper ensemble, all three at once. */
class ZooKeeperEnsembleFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<ZooKeeperEnsemble> ENSEMBLE = new ServerExtension<>(ZooKeeperEnsemble::started);

    @Override
    protected ServerProcess server() {
        return ENSEMBLE.server();
    }

    @Override
    protected String storeUrl() {
        return ENSEMBLE.server().url();
    }
}
