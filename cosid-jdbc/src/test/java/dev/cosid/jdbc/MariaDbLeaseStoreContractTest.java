package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.MariaDbServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract against a MariaDB server started by the test, opened by URL. */
class MariaDbLeaseStoreContractTest extends LeaseStoreContract {

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
    protected LeaseStore createStore() {
        return LeaseStores.open(server.jdbcUrl());
    }
}
