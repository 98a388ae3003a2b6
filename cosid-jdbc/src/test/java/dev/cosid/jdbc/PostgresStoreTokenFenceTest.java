package dev.cosid.jdbc;

import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Store tokens in the JDBC fence, both in one PostgreSQL database started by the test. */
class PostgresStoreTokenFenceTest extends StoreTokenFenceTests {

    @RegisterExtension
    static final ServerExtension<PostgresServer> SERVER = new ServerExtension<>(PostgresServer::started);

    @Override
    protected String storeUrl() {
        return SERVER.server().jdbcUrl();
    }

    @Override
    protected String jdbcUrl() {
        return SERVER.server().jdbcUrl();
    }
}
