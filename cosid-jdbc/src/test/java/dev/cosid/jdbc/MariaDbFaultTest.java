package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a MariaDB server started by the test. */
class MariaDbFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> SERVER = new ServerExtension<>(MariaDbServer::started);

    @Override
    protected ServerProcess server() {
        return SERVER.server();
    }

    @Override
    protected String storeUrl() {
        return SERVER.server().jdbcUrl();
    }
}
