package dev.cosid.zookeeper;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.ZooKeeperServer;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Restart, pause, crowd and data loss against a ZooKeeper server started by the test. */
class ZooKeeperFaultTest extends StoreFaultContract {

    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.started();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected ServerProcess server() {
        return server;
    }

    @Override
    protected String storeUrl() {
        return server.url();
    }
}
