package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a PostgreSQL server started by the test, opened by its store URL. */
class PostgresCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<PostgresServer> SERVER = new ServerExtension<>(PostgresServer::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(SERVER.server().jdbcUrl());
    }
}
