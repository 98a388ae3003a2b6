package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a PostgreSQL server started by the test. */
class PostgresFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<PostgresServer> SERVER = new ServerExtension<>(PostgresServer::started);

    @Override
    protected ServerProcess server() {
        return SERVER.server();
    }

    @Override
    protected String storeUrl() {
        return SERVER.server().jdbcUrl();
    }
}
