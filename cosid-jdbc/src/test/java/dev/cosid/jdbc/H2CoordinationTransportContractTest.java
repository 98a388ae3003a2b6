package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import java.nio.file.Path;
import java.sql.SQLException;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The transport contract against an H2 TCP server started by the test, opened by its store URL. */
class H2CoordinationTransportContractTest extends CoordinationTransportContract {

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
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/leader");
    }
}
