package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Restart, pause, crowd and data loss against a MariaDB server started by the test. */
class MariaDbFaultTest extends StoreFaultContract {

    private static MariaDbServer server;

    @BeforeAll
    static void startServer() {
        server = MariaDbServer.started();
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
        return server.jdbcUrl();
    }
}
