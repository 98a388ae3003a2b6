package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.PostgresServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract against a PostgreSQL server started by the test, opened by URL. */
class PostgresLeaseStoreContractTest extends LeaseStoreContract {

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
    protected LeaseStore createStore() {
        return LeaseStores.open(server.jdbcUrl());
    }
}
