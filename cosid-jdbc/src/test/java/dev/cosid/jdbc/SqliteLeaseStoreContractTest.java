package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
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
}
