package dev.cosid.jdbc;

import java.nio.file.Path;

/** Opens the embedded SQLite store: WAL journal, full sync, and a busy timeout for other processes. */
final class SqliteDataSources {

    /** How long a statement waits for another process's write lock. */
    static final int BUSY_TIMEOUT_MILLIS = 10_000;

    private SqliteDataSources() {
    }

    static JdbcLeaseStore open(Path file) {
        String description = "sqlite:" + file.toAbsolutePath();
        SqliteFile database = SqliteFile.open(file, description);
        try {
            // connections never create the file: a file that vanished stays vanished
            return new JdbcLeaseStore(SqliteFile.dataSource(database.file(), false), JdbcDialect.SQLITE, description,
                    true, null, database);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

}
