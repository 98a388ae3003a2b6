package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Restart, pause, crowd and data loss against a PostgreSQL server started by the test. */
class PostgresFaultTest extends StoreFaultContract {

    private static PostgresServer server;

    @BeforeAll
    static void startServer() {
        server = PostgresServer.started();
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
