package dev.cosid.coordination.kafka.fence;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The JDBC fence on an SQLite file: one writer at a time, so the order comes from the database lock. */
class SqliteJdbcFenceTest extends JdbcFenceContract {

    @TempDir
    Path dir;

    @Override
    protected String url() {
        return "jdbc:sqlite:" + dir.resolve("fence.db") + "?busy_timeout=30000";
    }

    @Override
    protected boolean rowLocks() {
        return false;
    }
}
