package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.LeaseStoreContract;
import dev.cosid.testkit.servers.PostgresStandbyPair;
import dev.cosid.testkit.servers.ServerExtension;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract through a URL naming a PostgreSQL primary and its asynchronous standby. */
class PostgresStandbyContractTest extends LeaseStoreContract {

    @RegisterExtension
    static final ServerExtension<PostgresStandbyPair> PAIR = new ServerExtension<>(() -> PostgresStandbyPair.started(false));

    @Override
    protected LeaseStore createStore() {
        // an asynchronous standby is refused unless the URL accepts that a partition can repeat ids
        return LeaseStores.open(PAIR.server().jdbcUrl() + "&allowRepeatedIdsOnPartition=true");
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws SQLException {
        Sql.deleteNamespace(PAIR.server().jdbcUrl(), namespace);
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws SQLException {
        Sql.deleteSlot(PAIR.server().jdbcUrl(), namespace, slot);
    }
}
