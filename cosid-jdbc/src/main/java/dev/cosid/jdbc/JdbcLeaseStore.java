package dev.cosid.jdbc;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Names;
import dev.cosid.lease.NamespaceLimits;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.lease.StoreDataLostException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A lease store in a relational database: each operation is one SQL statement whose {@code WHERE}
 * is the condition and whose time is the database's clock.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = JdbcLeaseStore.sqlite(Path.of("/var/lib/cosid/cosid.db"));
 * }</pre>
 */
public final class JdbcLeaseStore implements LeaseStore {

    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private final String description;
    private final AutoCloseable onClose;
    /** The embedded database file, checked around every operation; null for a server database. */
    private final SqliteFile file;
    private final NamespaceLimits limits = new NamespaceLimits();
    private final NamedSql insertNamespace;
    private final NamedSql selectNamespace;
    private final NamedSql selectSlots;
    private final NamedSql selectSlot;
    private final NamedSql acquire;
    private final NamedSql renew;
    private final NamedSql release;
    private final NamedSql insertLayout;
    private final NamedSql selectLayout;
    /** Leaf's table, when segment counters are kept there; null for the store's own {@code cosid_segment}. */
    private final LeafAllocTable leaf;
    /**
     * Whether every write must find the primary committing synchronously to a standby: a PostgreSQL URL that
     * names several hosts fails over to a standby, and only a synchronous one has every confirmed write.
     */
    private final boolean requireSynchronous;
    /**
     * How long one statement may take before it is cancelled: {@link #DEFAULT_BOUND_MILLIS} until a keeper's
     * terms arrive, then a sixth of their ttl, so a store that hangs never holds a keeper past ttl/3.
     */
    private volatile long boundMillis = DEFAULT_BOUND_MILLIS;

    /**
     * The statements running now: {@link #close()} cancels them, so a call still waiting (on a row lock, on a
     * cut-off synchronous standby) leaves no backend behind when the process ends right after.
     */
    private final java.util.Set<Statement> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The longest a statement may take before the keeper's terms set a shorter bound. */
    static final long DEFAULT_BOUND_MILLIS = 5_000;
    /** The shortest bound of a store that writes through a synchronous standby. */
    static final long SYNCHRONOUS_MIN_BOUND_MILLIS = 1_000;
    /** Sends the cancels, each of which may wait for a frozen server. */
    private static final java.util.concurrent.ExecutorService CANCELLER =
            java.util.concurrent.Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "cosid-jdbc-cancel");
                thread.setDaemon(true);
                return thread;
            });
    /**
     * Cancels statements that outlive their bound; one daemon thread for every store of the process, which ends a
     * second after the last statement: no thread outlives the stores (mvn exec:java waits 15 s for one, and a
     * thread kept forever keeps an undeployed application's class loader).
     */
    private static final java.util.concurrent.ScheduledThreadPoolExecutor WATCHDOG = watchdog();

    private static java.util.concurrent.ScheduledThreadPoolExecutor watchdog() {
        java.util.concurrent.ScheduledThreadPoolExecutor watchdog =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, task -> {
                    Thread thread = new Thread(task, "cosid-jdbc-watchdog");
                    thread.setDaemon(true);
                    return thread;
                });
        // a finished statement's watch leaves the queue at once, so the idle thread is not held by it
        watchdog.setRemoveOnCancelPolicy(true);
        watchdog.setKeepAliveTime(1, java.util.concurrent.TimeUnit.SECONDS);
        watchdog.allowCoreThreadTimeOut(true);
        return watchdog;
    }

    /**
     * Creates a store over a data source the caller owns.
     *
     * @param dataSource the connections
     * @param dialect the database's SQL
     * @param description the address for messages, without a password
     * @param createSchema whether to create the tables if they are missing; if not, their absence is an
     *     error that names the DDL to run
     */
    public JdbcLeaseStore(DataSource dataSource, JdbcDialect dialect, String description, boolean createSchema) {
        this(dataSource, dialect, description, createSchema, null, null, null, false);
    }

    JdbcLeaseStore(DataSource dataSource, JdbcDialect dialect, String description, boolean createSchema,
                   AutoCloseable onClose, SqliteFile file) {
        this(dataSource, dialect, description, createSchema, onClose, file, null, false);
    }

    /**
     * Creates a store whose segment counters, when {@code leafTable} is not null, are the rows of Leaf's
     * table of that name in the same database (see {@link LeafAllocTable}), and which, when
     * {@code requireSynchronous}, writes only while the primary commits synchronously to a standby.
     */
    JdbcLeaseStore(DataSource dataSource, JdbcDialect dialect, String description, boolean createSchema,
                   AutoCloseable onClose, SqliteFile file, String leafTable, boolean requireSynchronous) {
        this(dataSource, dialect, description, createSchema, onClose, file, leafTable, requireSynchronous, true);
    }

    /**
     * Creates a store as above; without {@code idTables} it neither creates nor checks the id tables, for a
     * leadership transport that uses only its connections, bounds and checks ({@link JdbcCoordinationTransport}).
     */
    JdbcLeaseStore(DataSource dataSource, JdbcDialect dialect, String description, boolean createSchema,
                   AutoCloseable onClose, SqliteFile file, String leafTable, boolean requireSynchronous,
                   boolean idTables) {
        this.requireSynchronous = requireSynchronous;
        this.leaf = leafTable == null ? null : new LeafAllocTable(dataSource, leafTable, description);
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.description = Objects.requireNonNull(description, "description");
        this.onClose = onClose;
        this.file = file;
        this.insertLayout = NamedSql.parse(dialect.insertLayout());
        this.selectLayout = NamedSql.parse(dialect.selectLayout());
        this.insertNamespace = NamedSql.parse(dialect.insertNamespace());
        this.selectNamespace = NamedSql.parse(dialect.selectNamespace());
        this.selectSlots = NamedSql.parse(dialect.selectSlots());
        this.selectSlot = NamedSql.parse(dialect.selectSlot());
        this.acquire = NamedSql.parse(dialect.acquire());
        this.renew = NamedSql.parse(dialect.renew());
        this.release = NamedSql.parse(dialect.release());
        if (requireSynchronous) {
            run("check that the primary commits synchronously", connection -> {
                checkSynchronous(connection);
                return null;
            });
        }
        if (idTables && createSchema) {
            createSchema();
        } else if (idTables) {
            verifySchema();
        }
        if (leaf != null) {
            leaf.verify();
        }
    }

    /**
     * Refuses to write unless the primary commits synchronously to a standby for this session:
     * {@code synchronous_standby_names} set and {@code synchronous_commit} on, remote_write or remote_apply.
     * Otherwise a partition that cuts the primary off while a standby is promoted lets both sides confirm
     * windows the other never sees. A primary that streams to no standby at all passes too: a promoted standby
     * whose old primary is gone or cut off is the only copy, and a cut-off primary set up synchronously still
     * waits for its lost standby, so only one side confirms.
     */
    private void checkSynchronous(Connection connection) throws SQLException {
        String names;
        String commit;
        long standbys;
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT current_setting('synchronous_standby_names'), "
                     + "current_setting('synchronous_commit'), (SELECT count(*) FROM pg_stat_replication)")) {
            row.next();
            names = row.getString(1);
            commit = row.getString(2);
            standbys = row.getLong(3);
        }
        boolean synchronous = names != null && !names.isBlank()
                && java.util.Set.of("on", "remote_write", "remote_apply").contains(commit);
        if (synchronous || standbys == 0) {
            return;
        }
        throw new LeaseStoreException("store URL '" + description + "' names several hosts, but its primary does "
                + "not commit synchronously to a standby (synchronous_standby_names='" + names
                + "', synchronous_commit=" + commit + ", " + standbys + " standbys streaming"
                + "): a partition that cuts the primary off while a standby is promoted would repeat ids; set "
                + "synchronous_standby_names on the primary and leave synchronous_commit on, or add "
                + JdbcLeaseStoreProvider.ALLOW_REPEATS + "=true to the URL to accept that");
    }

    /**
     * Opens the embedded SQLite store in a file, creating the file, its directory and the schema when no
     * process uses the path. The store never creates the file again while it is open: a file deleted,
     * truncated or replaced under it ends every operation with {@link StoreDataLostException}.
     *
     * @param file the database file
     * @return the store, which the caller closes
     */
    public static JdbcLeaseStore sqlite(java.nio.file.Path file) {
        return SqliteDataSources.open(file);
    }

    /**
     * Creates a store over an application's data source (a connection pool it owns and closes), with the
     * dialect its database names, creating the tables if they are missing. SQLite, PostgreSQL,
     * MariaDB/MySQL and H2 are known.
     *
     * @param dataSource the application's connections
     * @return the store; closing it leaves the data source open
     * @throws LeaseStoreException when the database cannot be reached or is of another kind
     */
    public static JdbcLeaseStore on(DataSource dataSource) {
        return on(dataSource, true);
    }

    /** Opens a store on an application's data source; without {@code idTables} for a leadership transport. */
    static JdbcLeaseStore on(DataSource dataSource, boolean idTables) {
        Objects.requireNonNull(dataSource, "dataSource");
        String product;
        String url;
        try (Connection connection = dataSource.getConnection()) {
            java.sql.DatabaseMetaData meta = connection.getMetaData();
            product = meta.getDatabaseProductName();
            url = String.valueOf(meta.getURL());
        } catch (SQLException e) {
            throw new LeaseStoreException("cannot reach the data source " + dataSource + ": " + e.getMessage(), e);
        }
        String kind = product == null ? "" : product.toLowerCase(java.util.Locale.ROOT);
        JdbcDialect dialect;
        if (kind.contains("sqlite")) {
            dialect = JdbcDialect.SQLITE;
        } else if (kind.contains("postgresql")) {
            dialect = JdbcDialect.POSTGRESQL;
        } else if (kind.contains("mariadb") || kind.contains("mysql")) {
            dialect = JdbcDialect.MARIADB;
        } else if (kind.equals("h2")) {
            dialect = JdbcDialect.H2;
        } else {
            throw new LeaseStoreException("the data source's database '" + product + "' (" + LeaseStores.redact(url)
                    + ") has no CosId dialect; known: SQLite, PostgreSQL, MariaDB, MySQL, H2");
        }
        return new JdbcLeaseStore(dataSource, dialect, LeaseStores.redact(url), true, null, null, null, false, idTables);
    }

    /** Returns the dialect. */
    public JdbcDialect dialect() {
        return dialect;
    }

    private void createSchema() {
        run("create the schema", connection -> {
            try (Statement statement = connection.createStatement()) {
                for (String ddl : dialect.schema()) {
                    statement.execute(ddl);
                }
            }
            return null;
        });
    }

    private void verifySchema() {
        try (Connection connection = dataSource.getConnection()) {
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery(dialect.probeSchema()).close();
            } catch (SQLException missing) {
                throw new LeaseStoreException("the CosId tables are missing in " + description + " ("
                        + missing.getMessage() + "); create them with the DDL that './cosid schema --dialect "
                        + dialect.name() + "' prints, or allow auto-creation:\n" + dialect.schemaScript(), missing);
            }
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery(dialect.probeLayouts()).close();
            } catch (SQLException missing) {
                throw new LeaseStoreException("the table cosid_layout is missing in " + description + " ("
                        + missing.getMessage() + "): CosId 5.0 records the layout of each id space in it, and this "
                        + "store may not create tables (createSchema=false). Create it once with:\n"
                        + dialect.layoutTable() + ";\n", missing);
            }
        } catch (SQLException e) {
            throw new LeaseStoreException("cannot reach " + description + ": " + e.getMessage(), e);
        }
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        Namespaces.require(namespace);
        Map<String, Object> values = Map.of("ns", namespace, "limit", proposed.limit(), "tol",
                proposed.toleranceMillis());
        NamespaceRecord stored = write("register namespace '" + namespace + "'", connection -> {
            try (PreparedStatement insert = insertNamespace.prepare(connection, values)) {
                bounded(connection, insert, insert::executeUpdate);
            }
            return selectNamespace(connection, namespace).orElseThrow(() ->
                    new SQLException("namespace '" + namespace + "' vanished right after it was inserted"));
        });
        limits.remember(namespace, stored);
        return stored;
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        Namespaces.require(namespace);
        return run("read namespace '" + namespace + "'", connection -> selectNamespace(connection, namespace));
    }

    private Optional<NamespaceRecord> selectNamespace(Connection connection, String namespace) throws SQLException {
        try (PreparedStatement select = selectNamespace.prepare(connection, Map.of("ns", namespace));
             ResultSet row = select.executeQuery()) {
            return row.next() ? Optional.of(new NamespaceRecord(row.getInt(1), row.getLong(2))) : Optional.empty();
        }
    }

    @Override
    public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        Namespaces.require(namespace);
        Names.require(name);
        Map<String, Object> values = new HashMap<>();
        values.put("ns", namespace);
        values.put("name", name);
        values.put("epoch", proposed.epochMillis());
        values.put("unit", proposed.unitMillis());
        values.put("tbits", proposed.timestampBits());
        values.put("sbits", proposed.slotBits());
        values.put("qbits", proposed.sequenceBits());
        return write("record the layout of id space '" + name + "' of namespace '" + namespace + "'", connection -> {
            try (PreparedStatement insert = insertLayout.prepare(connection, values)) {
                bounded(connection, insert, insert::executeUpdate);
            }
            try (PreparedStatement select = selectLayout.prepare(connection, Map.of("ns", namespace, "name", name));
                 ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("the layout of id space '" + name + "' vanished right after it was inserted");
                }
                return new LayoutRecord(row.getLong(1), row.getLong(2), row.getInt(3), row.getInt(4), row.getInt(5));
            }
        });
    }

    @Override
    public SlotTable read(String namespace) {
        Namespaces.require(namespace);
        return run("read the slots of namespace '" + namespace + "'", connection -> {
            try (PreparedStatement select = selectSlots.prepare(connection, Map.of("ns", namespace));
                 ResultSet rows = select.executeQuery()) {
                List<SlotRecord> records = new ArrayList<>();
                long now = 0;
                while (rows.next()) {
                    now = rows.getLong(10);
                    rows.getInt(1);
                    if (!rows.wasNull()) {
                        records.add(record(rows));
                    }
                }
                return new SlotTable(namespace, now, records);
            }
        });
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        checkSlot(namespace, slot);
        Map<String, Object> values = values(namespace, slot, owner);
        values.put("ttl", terms.ttlMillis());
        values.put("tol", terms.toleranceMillis());
        values.put("guard", terms.coldStartGuard() ? 1 : 0);
        values.put("takeover", terms.takeoverGuard() ? 1 : 0);
        bound(terms);
        return write("acquire slot " + slot + " of namespace '" + namespace + "'", connection -> {
            try {
                // the statement changes the row only at the fence read here, so the owner read here is the one
                // the acquire replaced: a takeover exactly when it names one
                boolean takesOver;
                try (PreparedStatement select = selectSlot.prepare(connection, Map.of("ns", namespace, "slot", slot));
                     ResultSet row = select.executeQuery()) {
                    boolean exists = row.next();
                    takesOver = exists && row.getString(1) != null;
                    values.put("seen", exists ? row.getLong(2) : 0L);
                }
                return returning(connection, acquire, values, namespace).map(lease -> takesOver
                        ? new SlotLease(lease.namespace(), lease.slot(), lease.owner(), lease.fence(),
                                lease.expiresAt(), lease.floor(), lease.ceiling(), lease.storeNow(), true)
                        : lease);
            } catch (SQLException e) {
                if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                    // a concurrent acquire inserted the row first (H2's MERGE): the race is lost, nothing changed
                    return Optional.<SlotLease>empty();
                }
                throw e;
            }
        }).filter(lease -> owner.equals(lease.owner()));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        checkSlot(lease.namespace(), lease.slot());
        Map<String, Object> values = values(lease.namespace(), lease.slot(), lease.owner());
        values.put("ttl", terms.ttlMillis());
        values.put("tol", terms.toleranceMillis());
        values.put("fence", lease.fence());
        bound(terms);
        return write("renew " + lease, connection -> returning(connection, renew, values, lease.namespace()))
                .filter(row -> lease.owner().equals(row.owner()) && row.fence() == lease.fence());
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        checkSlot(lease.namespace(), lease.slot());
        Map<String, Object> values = values(lease.namespace(), lease.slot(), lease.owner());
        values.put("fence", lease.fence());
        values.put("last", lastIssuedMillis);
        values.put("ceiling", lease.ceiling());
        return write("release " + lease, connection -> returning(connection, release, values, lease.namespace()))
                .filter(row -> row.owner() == null && row.fence() == lease.fence() + 1)
                .isPresent();
    }

    private static Map<String, Object> values(String namespace, int slot, Owner owner) {
        Map<String, Object> values = new HashMap<>();
        values.put("ns", namespace);
        values.put("slot", slot);
        values.put("key", owner.key());
        values.put("inc", owner.incarnation().toString());
        return values;
    }

    private void checkSlot(String namespace, int slot) {
        limits.requireSlot(namespace, slot, this::namespace);
    }

    private Optional<SlotLease> returning(Connection connection, NamedSql sql, Map<String, Object> values,
                                                 String namespace) throws SQLException {
        try (PreparedStatement statement = sql.prepare(connection, values)) {
            return bounded(connection, statement, () -> {
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next() || (dialect.reportsApplied() && row.getInt(11) != 1)) {
                        return Optional.<SlotLease>empty();
                    }
                    return Optional.of(record(row).toLease(namespace, row.getLong(10)));
                }
            });
        }
    }

    private void bound(LeaseTerms terms) {
        long bound = terms.callBoundMillis(DEFAULT_BOUND_MILLIS);
        // a write through a synchronous standby is a quorum write, as on ZooKeeper and etcd: on a loaded machine
        // the standby's confirmation alone took over 250 ms (a contract test's short lease, 3 of 3 under load), so
        // such a store, like those, waits at least 1 s; a longer wait costs availability, never uniqueness
        boundMillis = requireSynchronous ? Math.max(SYNCHRONOUS_MIN_BOUND_MILLIS, bound) : bound;
    }

    /**
     * Runs one statement within the bound: past it the statement is cancelled, so no backend keeps waiting,
     * and keeps the slot's row locked, after the store gave up on it. A commit whose wait for the synchronous
     * standby the cancel ended has committed on the primary only (PostgreSQL warns "canceling wait for
     * synchronous replication"): it fails here, so the keeper never counts on a window only this primary knows.
     */
    <T> T bounded(Connection connection, Statement statement, SqlCall<T> call) throws SQLException {
        long bound = boundMillis;
        java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.ScheduledFuture<?> watchdog = WATCHDOG.schedule(() -> {
            if (!finished.get() && cancelled.compareAndSet(false, true)) {
                // on a thread of its own: a cancel that finds the server frozen waits for it, and must hold up
                // neither this call nor other stores' watchdogs. The drivers send a cancel only while the
                // statement runs; one that arrives late at worst fails a later call, which the keeper retries
                CANCELLER.execute(() -> {
                    try {
                        statement.cancel();
                    } catch (SQLException | RuntimeException ignored) {
                        // the network timeout ends the call instead
                    }
                });
            }
        }, bound, java.util.concurrent.TimeUnit.MILLISECONDS);
        T result;
        running.add(statement);
        try {
            result = call.run();
        } catch (SQLException e) {
            if (cancelled.get()) {
                throw new SQLException("the statement took longer than " + bound + " ms and was cancelled ("
                        + e.getMessage() + ")", e.getSQLState(), e);
            }
            throw e;
        } finally {
            finished.set(true);
            running.remove(statement);
            watchdog.cancel(false);
        }
        for (java.sql.SQLWarning warning = statement.getWarnings(); warning != null;
                warning = warning.getNextWarning()) {
            String message = String.valueOf(warning.getMessage());
            if (message.contains("synchronous replication")) {
                throw new SQLException("the primary committed the write locally, but no synchronous standby "
                        + "confirmed it within " + bound + " ms (" + message + "); it does not count");
            }
        }
        return result;
    }

    private static SlotRecord record(ResultSet row) throws SQLException {
        String key = row.getString(2);
        String incarnation = row.getString(3);
        Owner owner = key == null || incarnation == null ? null : new Owner(key, UUID.fromString(incarnation));
        return new SlotRecord(row.getInt(1), owner, row.getString(4), row.getLong(5), row.getLong(6), row.getLong(7),
                row.getLong(8), row.getLong(9));
    }

    /** Runs one write: with {@link #requireSynchronous}, only on a primary that commits synchronously. */
    <T> T write(String what, SqlWork<T> work) {
        if (!requireSynchronous) {
            return run(what, work);
        }
        return run(what, connection -> {
            checkSynchronous(connection);
            return work.run(connection);
        });
    }

    /**
     * Runs one operation on one connection. The embedded file is checked before and after, so an
     * operation on a file that was deleted, replaced or truncated meanwhile never counts; an error that
     * means the tables or the file are gone is a {@link StoreDataLostException}.
     */
    <T> T run(String what, SqlWork<T> work) {
        if (file != null) {
            file.check();
        }
        T result;
        try (Connection connection = dataSource.getConnection()) {
            if (file == null) {
                try {
                    // past its bound a statement is cancelled; this ends the call when even the cancel finds
                    // no server to answer it
                    connection.setNetworkTimeout(WATCHDOG, (int) Math.min(Integer.MAX_VALUE, boundMillis * 2 + 1_000));
                } catch (SQLException | UnsupportedOperationException | AbstractMethodError e) {
                    // a driver without a network timeout (an embedded database) cannot hang on a network
                }
            }
            result = work.run(connection);
        } catch (SQLException e) {
            if (file != null) {
                file.check(); // a deleted file shows as "unable to open": name the cause instead
            }
            if (dialect.dataGone(e)) {
                throw new StoreDataLostException("the CosId data in " + description + " is gone while in use ("
                        + e.getMessage() + "): its tables were dropped, or the file was truncated or overwritten. "
                        + "Nothing is created again, since others may still issue ids under windows only the lost "
                        + "data knew; restore it, or stop every process that uses it and start again", e);
            }
            throw new LeaseStoreException("cannot " + what + " in " + description + ": " + e.getMessage(), e);
        }
        if (file != null) {
            file.check();
        }
        return result;
    }

    /** The segment statements, parsed at the first segment operation after the segment table was found. */
    private volatile SegmentSql segmentSql;

    /** The parsed segment statements of the dialect. */
    private record SegmentSql(NamedSql reserve, NamedSql raise, NamedSql returnTail, NamedSql select,
                              NamedSql selectAll) {
    }

    /** How often a segment statement that a deadlock or a racing first insert rolled back runs again. */
    private static final int SEGMENT_ATTEMPTS = 20;

    private SegmentSql segmentSql() {
        SegmentSql sql = segmentSql;
        if (sql != null) {
            return sql;
        }
        run("find the table cosid_segment", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery(dialect.probeSegments()).close();
            } catch (SQLException missing) {
                if (dialect.dataGone(missing)) {
                    throw new LeaseStoreException("the table cosid_segment is missing in " + description + " ("
                            + missing.getMessage() + "): segment ids keep their counters in it, and the tables "
                            + "were made before it or by hand. Create it once with:\n" + dialect.segmentTable()
                            + ";\nor let the store create its tables (createSchema=true)", missing);
                }
                throw missing;
            }
            return null;
        });
        sql = new SegmentSql(NamedSql.parse(dialect.reserveSegment()), NamedSql.parse(dialect.raiseSegment()),
                NamedSql.parse(dialect.returnSegmentTail()), NamedSql.parse(dialect.selectSegment()),
                NamedSql.parse(dialect.selectSegments()));
        segmentSql = sql;
        return sql;
    }

    @Override
    public SegmentRange reserveSegment(String namespace, String name, long size) {
        Namespaces.requireSegment(namespace, name);
        if (size < 1) {
            throw new IllegalArgumentException("a segment reservation takes at least 1 id, not " + size);
        }
        if (leaf != null) {
            return leaf.reserve(namespace, name, size);
        }
        long last = upsertSegment(segmentSql().reserve(), "reserve " + size + " ids of segment '" + name
                + "' of namespace '" + namespace + "'", namespace, name, size, true);
        return new SegmentRange(namespace, name, last - size + 1, last);
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        Namespaces.requireSegment(namespace, name);
        if (atLeast < 0) {
            throw new IllegalArgumentException("a segment counter is raised to 0 or more, not " + atLeast);
        }
        if (leaf != null) {
            return leaf.raise(name, atLeast);
        }
        return upsertSegment(segmentSql().raise(), "raise segment '" + name + "' of namespace '" + namespace
                + "' to " + atLeast, namespace, name, atLeast, false);
    }

    /**
     * Runs a reservation or a raise: one statement, run again only when the database rolled it back. No
     * row means the namespace record is missing (or, for a reservation, the counter is full).
     */
    private long upsertSegment(NamedSql sql, String what, String namespace, String name, long size,
                               boolean reserving) {
        Map<String, Object> values = Map.of("ns", namespace, "name", name, "size", size);
        for (int attempt = 1; ; attempt++) {
            boolean last = attempt == SEGMENT_ATTEMPTS;
            // a reservation is a write like a renewal: confirmed by the synchronous standby and bounded
            Optional<Long> counter = write(what, connection -> {
                try (PreparedStatement statement = sql.prepare(connection, values)) {
                    return bounded(connection, statement, () -> {
                        try (ResultSet row = statement.executeQuery()) {
                            return row.next() ? Optional.of(row.getLong(1)) : Optional.<Long>empty();
                        }
                    });
                } catch (SQLException e) {
                    if (!last && JdbcDialect.rolledBack(e)) {
                        return null; // rolled back, nothing changed: run it again
                    }
                    throw e;
                }
            });
            if (counter != null && counter.isPresent()) {
                return counter.get();
            }
            if (counter != null) {
                explainMissingSegmentRow(namespace, name, size, reserving);
            }
            if (last) {
                throw new LeaseStoreException("cannot " + what + " in " + description + ": the statement changed "
                        + "nothing " + SEGMENT_ATTEMPTS + " times in a row");
            }
        }
    }

    /** Throws the reason a segment statement returned no row; returns when it may run again. */
    private void explainMissingSegmentRow(String namespace, String name, long size, boolean reserving) {
        if (namespace(namespace).isEmpty()) {
            throw limits.missing(namespace, description);
        }
        if (reserving) {
            long counter = segments(namespace).getOrDefault(name, 0L);
            if (counter > Long.MAX_VALUE - size) {
                throw new IllegalStateException("segment '" + name + "' of namespace '" + namespace + "' stands at "
                        + counter + ": " + size + " more ids would pass the largest id " + Long.MAX_VALUE);
            }
        }
    }

    @Override
    public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        Namespaces.requireSegment(range.namespace(), range.name());
        if (lastIssued < range.first() - 1 || lastIssued > range.last()) {
            throw new IllegalArgumentException("last issued id " + lastIssued + " lies outside " + range);
        }
        if (leaf != null) {
            return false; // Leaf's servers would not know of a tail handed back: it stays a gap
        }
        SegmentSql sql = segmentSql();
        Map<String, Object> values = Map.of("ns", range.namespace(), "name", range.name(), "last", lastIssued,
                "seen", range.last());
        if (lastIssued == range.last()) {
            // no tail: the answer is whether the range is still the last one
            return run("read segment '" + range.name() + "' of namespace '" + range.namespace() + "'", connection -> {
                try (PreparedStatement select = sql.select().prepare(connection, values);
                     ResultSet row = select.executeQuery()) {
                    return row.next() && row.getLong(1) == range.last();
                }
            });
        }
        return write("return the tail of " + range, connection -> {
            try (PreparedStatement update = sql.returnTail().prepare(connection, values)) {
                return bounded(connection, update, update::executeUpdate) == 1;
            }
        });
    }

    @Override
    public SortedMap<String, Long> segments(String namespace) {
        Namespaces.require(namespace);
        if (leaf != null) {
            return leaf.counters();
        }
        SegmentSql sql = segmentSql();
        return run("read the segments of namespace '" + namespace + "'", connection -> {
            try (PreparedStatement select = sql.selectAll().prepare(connection, Map.of("ns", namespace));
                 ResultSet rows = select.executeQuery()) {
                SortedMap<String, Long> counters = new TreeMap<>();
                while (rows.next()) {
                    counters.put(rows.getString(1), rows.getLong(2));
                }
                return counters;
            }
        });
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        for (Statement statement : running) {
            // a backend the server keeps for a call nobody waits for any more would hold the slot's row lock,
            // or wait for a cut-off standby, until the server stops: cancelled here, not left to the watchdog,
            // which ends with the process
            try {
                statement.cancel();
            } catch (SQLException | RuntimeException ignored) {
                // the statement ended meanwhile, or the server is gone: nothing is left waiting on it
            }
        }
        if (file != null) {
            file.close();
        }
        if (onClose != null) {
            try {
                onClose.close();
            } catch (Exception e) {
                throw new LeaseStoreException("cannot close " + description + ": " + e.getMessage(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "JdbcLeaseStore[" + description + "]";
    }

    /** One call to the driver, bounded by {@link #bounded}. */
    @FunctionalInterface
    interface SqlCall<T> {
        T run() throws SQLException;
    }

    /** The work of one operation on one connection, run by {@link #run} or {@link #write}. */
    @FunctionalInterface
    interface SqlWork<T> {
        T run(Connection connection) throws SQLException;
    }
}
