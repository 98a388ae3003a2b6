package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/** Opens the embedded SQLite store: WAL journal, full sync, and a busy timeout for other processes. */
final class SqliteDataSources {

    private static final int BUSY_TIMEOUT_MILLIS = 10_000;

    private SqliteDataSources() {
    }

    static JdbcLeaseStore open(Path file) {
        Path absolute = file.toAbsolutePath();
        String description = "sqlite:" + absolute;
        try {
            Path parent = absolute.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
        } catch (IOException e) {
            throw new LeaseStoreException("cannot create the directory of " + description + ": " + e, e);
        }
        if (Files.isDirectory(absolute)) {
            throw new LeaseStoreException(description + " is a directory, not a database file");
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(BUSY_TIMEOUT_MILLIS);
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + absolute);
        return new JdbcLeaseStore(dataSource, JdbcDialect.SQLITE, description, true);
    }
}
