package dev.cosid.jdbc;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Store tokens in the JDBC fence, both on one SQLite file. */
class SqliteStoreTokenFenceTest extends StoreTokenFenceTests {

    @TempDir
    static Path dir;

    @Override
    protected String storeUrl() {
        return "sqlite:" + dir.resolve("fenced.db");
    }

    @Override
    protected String jdbcUrl() {
        return "jdbc:sqlite:" + dir.resolve("fenced.db");
    }
}
