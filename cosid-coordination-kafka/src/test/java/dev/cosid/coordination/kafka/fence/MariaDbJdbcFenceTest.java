package dev.cosid.coordination.kafka.fence;

import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JDBC fence on a real MariaDB server, at its default isolation (repeatable read). */
class MariaDbJdbcFenceTest extends JdbcFenceContract {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> MARIADB = new ServerExtension<>(MariaDbServer::started);

    @Override
    protected String url() {
        return MARIADB.server().jdbcUrl();
    }
}
