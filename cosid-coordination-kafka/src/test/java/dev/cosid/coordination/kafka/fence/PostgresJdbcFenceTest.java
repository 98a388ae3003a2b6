package dev.cosid.coordination.kafka.fence;

import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC fence on a real PostgreSQL server, at its default isolation (read committed). */
class PostgresJdbcFenceTest extends JdbcFenceContract {

    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @Override
    protected String url() {
        return POSTGRES.server().jdbcUrl();
    }
}
