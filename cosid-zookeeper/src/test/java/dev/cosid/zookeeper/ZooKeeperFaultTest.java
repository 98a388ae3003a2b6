package dev.cosid.zookeeper;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.ZooKeeperServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a ZooKeeper server started by the test. */
class ZooKeeperFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<ZooKeeperServer> SERVER = new ServerExtension<>(ZooKeeperServer::started);

    @Override
    protected ServerProcess server() {
        return SERVER.server();
    }

    @Override
    protected String storeUrl() {
        return SERVER.server().url();
    }
}
