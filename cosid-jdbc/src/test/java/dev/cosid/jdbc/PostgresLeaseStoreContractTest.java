package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import java.sql.SQLException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a PostgreSQL server started by the test, opened by URL. */
class PostgresLeaseStoreContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<PostgresServer> SERVER = new ServerExtension<>(PostgresServer::started);

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open(SERVER.server().jdbcUrl());
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws SQLException {
        Sql.deleteNamespace(SERVER.server().jdbcUrl(), namespace);
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws SQLException {
        Sql.deleteSlot(SERVER.server().jdbcUrl(), namespace, slot);
    }

    @org.junit.jupiter.api.Test
    void aDatabaseOfThePreviousReleaseKeepsItsRecordsAndGainsTheLayoutTable() throws Exception {
        PreviousRelease.keepsWorking(SERVER.server().jdbcUrl(), SERVER.server().jdbcUrl(), "&");
    }
}
