package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteOpenMode;

/**
 * The database file of the embedded SQLite store, and the guard that keeps it from being silently
 * recreated while it is in use.
 *
 * <p>Every process that uses the file holds a shared lock on a sibling lock file ({@code PATH.lock}),
 * which also names the file it uses (device and inode). A process opening the store takes the
 * lock file's opening mutex, then looks at the database: when it exists with the CosId tables and is
 * the file the lock names, it joins the users. When it is missing, empty, without tables or another
 * file, it creates or adopts it only if no process uses the path (the users' lock is free); otherwise
 * the database was deleted, truncated or replaced under running processes, which may still be issuing
 * ids under windows the new file would not know, and the open is refused.
 *
 * <p>Once open, the store never creates the file again: connections open without SQLite's create
 * flag, and every operation first checks that the path still names the same, non-empty file. The
 * operating system drops the locks of a process that dies.
 */
final class SqliteFile implements AutoCloseable {

    /** How long an opener waits for another process's opening to finish. */
    private static final long OPEN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The users' lock: shared by every process that has the database open. */
    private static final long USERS = 0;
    /** The openers' mutex: held while a process inspects, creates or joins the database. */
    private static final long OPENING = 1;
    /** The files this JVM has open, by real path: file locks belong to the process, not to a store. */
    private static final Map<Path, Users> OPEN = new HashMap<>();

    private final Path file;
    private final Users users;
    private final String description;
    private boolean closed;

    private SqliteFile(Path file, Users users, String description) {
        this.file = file;
        this.users = users;
        this.description = description;
    }

    /** The lock held for every store of this JVM on one file. */
    private static final class Users {
        final Path lockFile;
        final FileChannel channel;
        final FileLock shared;
        final Object fileKey;
        int count;

        Users(Path lockFile, FileChannel channel, FileLock shared, Object fileKey) {
            this.lockFile = lockFile;
            this.channel = channel;
            this.shared = shared;
            this.fileKey = fileKey;
        }
    }

    /** What the path holds. */
    private enum Found { MISSING, EMPTY, NOT_A_DATABASE, NO_TABLES, READY }

    /** Returns the database file. */
    Path file() {
        return file;
    }

    /**
     * Opens the database file for a store, creating it only when no process uses its path.
     *
     * @param configured the path the URL names
     * @param description the store's address for messages
     * @return the open file, which the store closes
     * @throws StoreDataLostException when the file changed under processes that still use it
     * @throws IllegalArgumentException when the path has several hard links or is a dangling link
     */
    static SqliteFile open(Path configured, String description) {
        Path file = resolve(configured.toAbsolutePath(), description);
        synchronized (OPEN) {
            Users mine = OPEN.get(file);
            if (mine != null) {
                SqliteFile joined = new SqliteFile(file, mine, description);
                joined.check();
                mine.count++;
                return joined;
            }
            Users users = openFirst(file, description);
            users.count = 1;
            OPEN.put(file, users);
            return new SqliteFile(file, users, description);
        }
    }

    private static Path resolve(Path absolute, String description) {
        try {
            if (Files.isSymbolicLink(absolute) && !Files.exists(absolute)) {
                throw new IllegalArgumentException(description + " is a symbolic link to "
                        + Files.readSymbolicLink(absolute) + ", which does not exist; point it at the database or "
                        + "name the database's own path");
            }
            Path parent = absolute.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Path real = Files.exists(absolute) ? absolute.toRealPath()
                    : (parent == null ? absolute : parent.toRealPath().resolve(absolute.getFileName()));
            if (Files.isDirectory(real)) {
                throw new LeaseStoreException(description + " is a directory, not a database file");
            }
            if (Files.exists(real)) {
                Object links = Files.getAttribute(real, "unix:nlink");
                if (links instanceof Integer && (Integer) links > 1) {
                    throw new IllegalArgumentException(description + " has " + links + " hard links: SQLite keeps its "
                            + "journal and locks beside one name, so processes that reach one database by two names "
                            + "corrupt it. Remove the other links and give every process the same path");
                }
            }
            return real;
        } catch (UnsupportedOperationException e) {
            return absolute;
        } catch (IOException e) {
            throw new LeaseStoreException("cannot open the directory of " + description + ": " + e, e);
        }
    }

    private static Users openFirst(Path file, String description) {
        Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
        if (!Files.exists(lockFile) && inspect(file, description) == Found.NOT_A_DATABASE) {
            // no process uses the path (every user holds the lock file): refuse before creating anything beside it
            throw notADatabase(description);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new LeaseStoreException("cannot open the lock file " + lockFile + " of " + description + ": " + e, e);
        }
        try {
            FileLock opening = lock(channel, OPENING, false, description);
            try {
                Found found = inspect(file, description);
                String recorded = readKey(channel);
                boolean sameFile = recorded.isEmpty() || (found != Found.MISSING && recorded.equals(key(file)));
                if (found != Found.READY || !sameFile) {
                    FileLock alone = channel.tryLock(USERS, 1, false);
                    if (alone == null) {
                        throw new StoreDataLostException(description + " " + what(found, sameFile) + " while another "
                                + "process uses it (it holds " + lockFile + "), which may still issue ids under windows "
                                + "the file no longer knows. Nothing was created. Stop every process that uses it "
                                + "(they stop issuing at their next renewal), restore the file if you can, then start "
                                + "again");
                    }
                    try {
                        if (found == Found.NOT_A_DATABASE) {
                            throw notADatabase(description);
                        }
                        if (found == Found.MISSING || found == Found.EMPTY) {
                            // journal files of a database that is gone must not be replayed into the new one
                            for (String suffix : new String[] {"-wal", "-shm", "-journal"}) {
                                Files.deleteIfExists(file.resolveSibling(file.getFileName() + suffix));
                            }
                        }
                        create(file, description);
                        writeKey(channel, key(file));
                    } finally {
                        alone.release();
                    }
                } else if (recorded.isEmpty()) {
                    writeKey(channel, key(file));
                }
                FileLock shared = lock(channel, USERS, true, description);
                return new Users(lockFile, channel, shared, Files.readAttributes(file, BasicFileAttributes.class)
                        .fileKey());
            } finally {
                opening.release();
            }
        } catch (IOException e) {
            close(channel);
            throw new LeaseStoreException("cannot lock " + lockFile + " of " + description + ": " + e, e);
        } catch (RuntimeException e) {
            close(channel);
            throw e;
        }
    }

    private static LeaseStoreException notADatabase(String description) {
        return new LeaseStoreException(description + " is not a SQLite database (garbage or another kind of file); "
                + "it is left as it is. Move it aside or name another path");
    }

    private static String what(Found found, boolean sameFile) {
        switch (found) {
            case MISSING: return "was deleted";
            case EMPTY: return "was truncated to nothing";
            case NOT_A_DATABASE: return "was overwritten with something that is not a SQLite database";
            case NO_TABLES: return "lost its CosId tables (truncated or replaced)";
            default: return sameFile ? "changed" : "was replaced by another file";
        }
    }

    private static FileLock lock(FileChannel channel, long region, boolean shared, String description)
            throws IOException {
        Clock clock = Clock.system();
        long deadline = clock.monotonicNanos() + OPEN_WAIT_NANOS;
        for (;;) {
            FileLock lock = channel.tryLock(region, 1, shared);
            if (lock != null) {
                return lock;
            }
            if (clock.monotonicNanos() > deadline) {
                throw new LeaseStoreException("another process kept " + description + " locked for "
                        + TimeUnit.NANOSECONDS.toSeconds(OPEN_WAIT_NANOS) + " s while opening it; is one stopped "
                        + "(SIGSTOP) or hung?");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static Found inspect(Path file, String description) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return Found.MISSING;
        } catch (IOException e) {
            throw new LeaseStoreException("cannot read " + description + ": " + e, e);
        }
        if (attributes.size() == 0) {
            return Found.EMPTY;
        }
        try (Connection connection = dataSource(file, false).getConnection();
             Statement statement = connection.createStatement();
             ResultSet tables = statement.executeQuery("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' "
                     + "AND name IN ('cosid_namespace', 'cosid_slot')")) {
            return tables.next() && tables.getInt(1) == 2 ? Found.READY : Found.NO_TABLES;
        } catch (SQLException e) {
            if (e.getErrorCode() == 26 || e.getErrorCode() == 11) {
                return Found.NOT_A_DATABASE;
            }
            throw new LeaseStoreException("cannot read " + description + ": " + e.getMessage(), e);
        }
    }

    private static void create(Path file, String description) {
        try (Connection connection = dataSource(file, true).getConnection();
             Statement statement = connection.createStatement()) {
            for (String ddl : JdbcDialect.SQLITE.schema()) {
                statement.execute(ddl);
            }
        } catch (SQLException e) {
            throw new LeaseStoreException("cannot create " + description + ": " + e.getMessage(), e);
        }
    }

    /**
     * Returns a data source on the file: WAL journal, full sync, a busy timeout for other processes, and
     * SQLite's create flag only when asked for.
     */
    static SQLiteDataSource dataSource(Path file, boolean mayCreate) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(SqliteDataSources.BUSY_TIMEOUT_MILLIS);
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        if (!mayCreate) {
            config.resetOpenMode(SQLiteOpenMode.CREATE);
        }
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + file);
        return dataSource;
    }

    private static String key(Path file) throws IOException {
        return String.valueOf(Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    }

    private static String readKey(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(256);
        channel.read(buffer, 0);
        String text = new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
        return text.lines().findFirst().orElse("").strip();
    }

    private static void writeKey(FileChannel channel, String key) throws IOException {
        channel.truncate(0);
        channel.write(ByteBuffer.wrap((key + "\n").getBytes(StandardCharsets.UTF_8)), 0);
        channel.force(false);
    }

    /**
     * Checks that the path still names the file this store opened, not empty: call before and after
     * each operation.
     *
     * @throws StoreDataLostException when it was deleted, replaced or truncated
     */
    void check() {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw lost("was deleted");
        } catch (IOException e) {
            throw new LeaseStoreException("cannot read " + description + ": " + e, e);
        }
        if (!users.fileKey.equals(attributes.fileKey())) {
            throw lost("was replaced by another file");
        }
        if (attributes.size() == 0) {
            throw lost("was truncated to nothing");
        }
    }

    /**
     * Returns the refusal for a database that is no longer what this store opened.
     *
     * @param what what happened to it
     * @return the exception to throw
     */
    StoreDataLostException lost(String what) {
        return new StoreDataLostException(description + " " + what + " while in use; this process will not create "
                + "it again, since others may still issue ids under windows only the old file knew. Restore the file, "
                + "or stop every process that uses it and start again");
    }

    private static void close(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing was locked through it that outlives it
        }
    }

    /** Leaves the users of the file; the last store of this JVM to close releases the lock. Idempotent. */
    @Override
    public void close() {
        synchronized (OPEN) {
            if (closed) {
                return;
            }
            closed = true;
            if (--users.count == 0) {
                OPEN.remove(file);
                try {
                    users.shared.release();
                } catch (IOException ignored) {
                    // closing the channel drops it
                }
                close(users.channel);
            }
        }
    }
}
