package dev.cosid.jdbc;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.ControlledServer;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss of a PostgreSQL primary and its asynchronous standby, both hosts in the URL. */
class PostgresStandbyFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(false));

    @Override
    protected ControlledServer server() {
        return PAIR.server();
    }

    @Override
    protected String storeUrl() {
        // an asynchronous standby is refused unless the URL accepts that a partition can repeat ids
        return PAIR.server().jdbcUrl() + "&allowRepeatedIdsOnPartition=true";
    }
}
