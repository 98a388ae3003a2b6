package dev.cosid.jdbc;

import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leaf's table in place on a MariaDB server started by the test, created by Leaf's own MySQL script. */
class MariaDbLeafTableTest extends LeafTableTests {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> SERVER = new ServerExtension<>(MariaDbServer::started);

    @Override
    protected String jdbcUrl() {
        return SERVER.server().jdbcUrl();
    }

    @Override
    protected String ddl() {
        return LeafPeer.MYSQL_DDL;
    }
}
