package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import java.nio.file.Path;
import java.sql.SQLException;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against an H2 TCP server started by the test, opened by URL. */
class H2LeaseStoreContractTest extends LeaseStoreContract {

    @TempDir
    static Path dir;
    private static Server server;

    @BeforeAll
    static void startServer() throws SQLException {
        server = Server.createTcpServer("-tcpPort", "0", "-baseDir", dir.toString(), "-ifNotExists").start();
    }

    @AfterAll
    static void stopServer() {
        server.stop();
    }

    @Override
    protected LeaseStore createStore() {
        return LeaseStores.open("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/cosid");
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws SQLException {
        Sql.deleteNamespace("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/cosid", namespace);
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws SQLException {
        Sql.deleteSlot("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/cosid", namespace, slot);
    }

    @org.junit.jupiter.api.Test
    void aDatabaseOfThePreviousReleaseKeepsItsRecordsAndGainsTheLayoutTable() throws Exception {
        PreviousRelease.keepsWorking("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/cosid", "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/cosid", ";");
    }
}
