package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import java.sql.SQLException;
import dev.cosid.testkit.LeaseStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteLeaseStoreContractTest extends LeaseStoreContract {

    @TempDir
    static Path dir;

    @Override
    protected LeaseStore createStore() {
        return JdbcLeaseStore.sqlite(dir.resolve("contract.db"));
    }

    @Override
    protected void deleteNamespaceRecord(String namespace) throws SQLException {
        Sql.deleteNamespace("jdbc:sqlite:" + dir.resolve("contract.db"), namespace);
    }

    @Override
    protected void deleteSlotRecord(String namespace, int slot) throws SQLException {
        Sql.deleteSlot("jdbc:sqlite:" + dir.resolve("contract.db"), namespace, slot);
    }
}
