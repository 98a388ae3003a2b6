package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a MariaDB server started by the test, opened by its store URL. */
class MariaDbCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<MariaDbServer> SERVER = new ServerExtension<>(MariaDbServer::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(SERVER.server().jdbcUrl());
    }
}
