package dev.cosid.jdbc;

import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leaf's table in place on a PostgreSQL server started by the test. */
class PostgresLeafTableTest extends LeafTableTests {

    @RegisterExtension
    static final ServerExtension<PostgresServer> SERVER = new ServerExtension<>(PostgresServer::started);

    @Override
    protected String jdbcUrl() {
        return SERVER.server().jdbcUrl();
    }

    @Override
    protected String ddl() {
        return LeafPeer.POSTGRESQL_DDL;
    }
}
