package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleRecord;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.coordination.StoreLocks;
import dev.cosid.lease.LeaseStoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * Leadership in a relational database, the one the ids use: SQLite, PostgreSQL, MariaDB/MySQL or H2, opened
 * by the same URL. A role is one row of {@code cosid_leader}, a registration one row of
 * {@code cosid_leader_member}.
 *
 * <ul>
 *   <li>{@link #acquireEpoch} is one upsert that moves the role's fence on by one and returns it: the token is
 *       {@code (fence, 0)} ({@link RoleRecord#token(long)}), strictly greater than every token minted before
 *       for the role, never reused. The row lock orders concurrent mints.</li>
 *   <li>{@link #writeLease} and {@link #clearLease} are one {@code UPDATE ... WHERE role = ? AND fence = ?}: it
 *       changes the row only while the writer's fence is the role's, so a deposed holder's write changes
 *       nothing and gets {@link dev.cosid.coordination.FencedException}. Each write also moves the role's
 *       sequence on, which is the lease record's offset, and stamps the database's clock into
 *       {@code lease_written_at}.</li>
 *   <li>{@link #register} moves the sequence on and writes the member's row with it, so the roster comes back
 *       in registration order; one statement on PostgreSQL, one transaction of two elsewhere.</li>
 *   <li>{@link #readRoleRecords} is one {@code SELECT} of the role's row joined with its members' rows.</li>
 * </ul>
 *
 * <p>The lease's instants are the writer's, as the client granted them: the database compares no clock, since
 * the fence alone decides which writer counts. The writer's clock is the one that matters to an elected holder:
 * its revoke timer ({@code deadline - margin}) runs on the clock that wrote the deadline, so the margin needs to
 * cover only the skew between members, not each member's skew from the database.
 *
 * <p>A {@link StoreLocks lock} is the one exception: ShedLock's model has no timer on the holder, so the
 * database judges it. {@link #tryLock} is one {@code UPDATE} that mints and writes a lease granted at the
 * database's clock, {@code WHERE} the role's lease deadline is not ahead of that clock; {@link #unlock} keeps the
 * lease until its grant plus {@code atLeastFor} by the same clock, or clears it, only under the lock's fence. Every statement runs as the id store's do: bounded (cancelled
 * after 5 s), on a PostgreSQL URL with several hosts only while the primary commits synchronously to a standby,
 * on SQLite under the file guard. The tables are created when missing unless the URL says
 * {@code createSchema=false}; then {@link #schema(JdbcDialect)} gives the DDL to run.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (CoordinationTransport transport = JdbcCoordinationTransport.open("jdbc:postgresql://db:5432/app?user=cosid")) {
 *     Elector elector = Elector.builder(transport, Role.of("billing"), MemberId.of("node-1")).start();
 * }
 * }</pre>
 */
public final class JdbcCoordinationTransport implements CoordinationTransport, StoreLocks {

    /** How often a statement that the database rolled back (a deadlock, a lost race to insert a row) runs again. */
    private static final int ATTEMPTS = 20;

    /** The connections, bounds and checks of the id store of the same URL; closed with the transport. */
    private final JdbcLeaseStore store;
    private final NamedSql mint;
    private final NamedSql nextSequence;
    private final NamedSql registerInOne;
    private final NamedSql upsertMember;
    private final NamedSql deregister;
    private final NamedSql writeLease;
    private final NamedSql clearLease;
    private final NamedSql read;
    private final NamedSql fence;
    private final NamedSql roles;
    private final NamedSql lock;
    private final NamedSql locked;
    private final NamedSql keepLock;
    private final NamedSql clearLock;

    JdbcCoordinationTransport(JdbcLeaseStore store, boolean createSchema) {
        this.store = Objects.requireNonNull(store, "store");
        LeaderSql sql = new LeaderSql(store.dialect());
        this.mint = NamedSql.parse(sql.mint());
        this.nextSequence = NamedSql.parse(sql.nextSequence());
        this.registerInOne = sql.registerInOne() == null ? null : NamedSql.parse(sql.registerInOne());
        this.upsertMember = NamedSql.parse(sql.upsertMember());
        this.deregister = NamedSql.parse(sql.deregister());
        this.writeLease = NamedSql.parse(sql.writeLease());
        this.clearLease = NamedSql.parse(sql.clearLease());
        this.read = NamedSql.parse(sql.read());
        this.fence = NamedSql.parse(sql.fence());
        this.roles = NamedSql.parse(sql.roles());
        this.lock = NamedSql.parse(sql.lock());
        this.locked = NamedSql.parse(sql.locked());
        this.keepLock = NamedSql.parse(sql.keepLock());
        this.clearLock = NamedSql.parse(sql.clearLock());
        try {
            if (createSchema) {
                store.run("create the leadership tables", connection -> {
                    try (Statement statement = connection.createStatement()) {
                        for (String ddl : sql.schema()) {
                            statement.execute(ddl);
                        }
                    }
                    return null;
                });
            } else {
                verify(sql);
            }
        } catch (RuntimeException e) {
            store.close();
            throw e instanceof LeaseStoreException ? failure(e) : e;
        }
    }

    /**
     * Opens the transport of a store URL: {@code sqlite:PATH}, {@code jdbc:postgresql:}, {@code jdbc:mariadb:},
     * {@code jdbc:mysql:} or {@code jdbc:h2:}, with the options the id store takes.
     *
     * @param url the store URL
     * @return the transport, which owns its connections
     * @throws IllegalArgumentException when the URL is malformed or refused (a multi-host MariaDB URL without
     *     {@code allowRepeatedIdsOnPartition=true}, say)
     * @throws CoordinationException when the database cannot be reached, or its primary does not commit
     *     synchronously where the URL requires it
     */
    public static JdbcCoordinationTransport open(String url) {
        JdbcLeaseStoreProvider.Connected connected;
        try {
            connected = JdbcLeaseStoreProvider.connect(url, false);
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
        return new JdbcCoordinationTransport(connected.store(), connected.createSchema());
    }

    /**
     * Opens the transport on an application's data source (a pool it owns and closes), creating the tables if
     * they are missing. SQLite, PostgreSQL, MariaDB/MySQL and H2 are known.
     *
     * @param dataSource the application's connections
     * @return the transport; closing it leaves the data source open
     * @throws CoordinationException when the database cannot be reached or is of another kind
     */
    public static JdbcCoordinationTransport on(DataSource dataSource) {
        try {
            return new JdbcCoordinationTransport(JdbcLeaseStore.on(dataSource, false), true);
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
    }

    /**
     * Returns the DDL of the leadership tables, for a database user that may not create tables
     * ({@code createSchema=false}); each statement is safe to run again.
     *
     * @param dialect the database's dialect
     * @return the statements
     */
    public static List<String> schema(JdbcDialect dialect) {
        return new LeaderSql(Objects.requireNonNull(dialect, "dialect")).schema();
    }

    private void verify(LeaderSql sql) {
        store.run("find the leadership tables", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery(sql.probe()).close();
            } catch (SQLException missing) {
                throw new CoordinationException("the leadership tables are missing in " + store.describe() + " ("
                        + missing.getMessage() + "), and the URL says createSchema=false; create them once with:\n"
                        + String.join(";\n", sql.schema()) + ";\n", missing);
            }
            return null;
        });
    }

    @Override
    public FencingToken acquireEpoch(Role role) {
        Map<String, Object> values = Map.of("role", role.name());
        long minted = write("mint an epoch of role '" + role + "'", connection -> {
            try (PreparedStatement statement = mint.prepare(connection, values)) {
                return store.bounded(connection, statement, () -> single(statement));
            }
        });
        return RoleRecord.token(minted);
    }

    @Override
    public void register(Role role, MemberId member, long atMillis) {
        Map<String, Object> values = new HashMap<>();
        values.put("role", role.name());
        values.put("member", member.name());
        values.put("at", atMillis);
        write("register " + member + " for role '" + role + "'", connection -> {
            if (registerInOne != null) {
                try (PreparedStatement statement = registerInOne.prepare(connection, values)) {
                    return store.bounded(connection, statement, statement::executeUpdate);
                }
            }
            // the role row's lock, taken by the first statement, is held until the commit: the sequence value and
            // the member's row appear together, in the order of the sequence
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement statement = nextSequence.prepare(connection, values)) {
                    values.put("seq", store.bounded(connection, statement, () -> single(statement)));
                }
                try (PreparedStatement statement = upsertMember.prepare(connection, values)) {
                    store.bounded(connection, statement, statement::executeUpdate);
                }
                connection.commit();
                return 1;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException ignored) {
                    // the connection is broken: the server rolls the transaction back when it closes
                }
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        });
    }

    @Override
    public void deregister(Role role, MemberId member) {
        Map<String, Object> values = Map.of("role", role.name(), "member", member.name());
        write("deregister " + member + " from role '" + role + "'", connection -> {
            try (PreparedStatement statement = deregister.prepare(connection, values)) {
                return store.bounded(connection, statement, statement::executeUpdate);
            }
        });
    }

    @Override
    public Lease writeLease(Role role, FencingToken token, Lease lease) {
        RoleRecord.requireLeaseToken(token, lease);
        Map<String, Object> values = new HashMap<>();
        values.put("role", role.name());
        values.put("fence", token.producerId());
        values.put("member", lease.member().name());
        values.put("granted", lease.grantedAt());
        values.put("deadline", lease.deadline());
        fenced(role, token, guarded("write the lease of role '" + role + "' with token " + token, writeLease, token,
                values));
        return lease;
    }

    @Override
    public void clearLease(Role role, FencingToken token) {
        Objects.requireNonNull(token, "token");
        Map<String, Object> values = Map.of("role", role.name(), "fence", token.producerId());
        fenced(role, token, guarded("clear the lease of role '" + role + "' with token " + token, clearLease, token,
                values));
    }

    /** Runs a write conditioned on the fence; a token with another epoch than 0 was not minted here and changes nothing. */
    private int guarded(String what, NamedSql sql, FencingToken token, Map<String, Object> values) {
        if (token.producerEpoch() != 0) {
            return 0;
        }
        return write(what, connection -> {
            try (PreparedStatement statement = sql.prepare(connection, values)) {
                return store.bounded(connection, statement, statement::executeUpdate);
            }
        });
    }

    private void fenced(Role role, FencingToken token, int changed) {
        if (changed == 1) {
            return;
        }
        Optional<FencingToken> current;
        try {
            current = describe(role);
        } catch (CoordinationException unknown) {
            current = Optional.empty();
        }
        throw RoleRecord.fenced(role, token, current);
    }

    @Override
    public Optional<Lease> tryLock(Role role, MemberId holder, Duration atMostFor, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(holder, "holder");
        StoreLocks.requireExtents(atMostFor, atLeastFor);
        Map<String, Object> values = new HashMap<>();
        values.put("role", role.name());
        values.put("member", holder.name());
        values.put("atmost", atMostFor.toMillis());
        return Optional.ofNullable(write("take the lock of role '" + role + "'", connection -> {
            // one transaction: the update's row lock keeps the row as it wrote it until the read below
            connection.setAutoCommit(false);
            try {
                int changed = update(connection, lock, values);
                if (changed == 0 && !exists(connection, values)) {
                    try (PreparedStatement statement = nextSequence.prepare(connection, values)) {
                        store.bounded(connection, statement, () -> single(statement)); // the role's row, fence 0
                    }
                    changed = update(connection, lock, values);
                }
                Lease lease = null;
                if (changed == 1) {
                    try (PreparedStatement statement = locked.prepare(connection, values)) {
                        lease = store.bounded(connection, statement, () -> {
                            try (ResultSet row = statement.executeQuery()) {
                                if (!row.next()) {
                                    throw new SQLException("the locked row of role '" + role + "' is gone");
                                }
                                return new Lease(holder, RoleRecord.token(row.getLong(1)), row.getLong(2),
                                        row.getLong(3));
                            }
                        });
                    }
                }
                connection.commit();
                return lease;
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException ignored) {
                    // the connection is broken: the server rolls the transaction back when it closes
                }
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }));
    }

    private int update(Connection connection, NamedSql sql, Map<String, Object> values) throws SQLException {
        try (PreparedStatement statement = sql.prepare(connection, values)) {
            return store.bounded(connection, statement, statement::executeUpdate);
        }
    }

    private boolean exists(Connection connection, Map<String, Object> values) throws SQLException {
        try (PreparedStatement statement = fence.prepare(connection, values)) {
            return store.bounded(connection, statement, () -> {
                try (ResultSet row = statement.executeQuery()) {
                    return row.next();
                }
            });
        }
    }

    @Override
    public boolean unlock(Role role, FencingToken token, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(token, "token");
        StoreLocks.requireAtLeast(atLeastFor);
        if (token.producerEpoch() != 0) {
            return false; // not minted here
        }
        Map<String, Object> values = Map.of("role", role.name(), "fence", token.producerId(), "atleast",
                atLeastFor.toMillis());
        int changed = write("release the lock of role '" + role + "' with token " + token, connection -> {
            int kept = update(connection, keepLock, values);
            return kept == 1 ? kept : update(connection, clearLock, values);
        });
        return changed == 1;
    }

    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        Map<String, Object> values = Map.of("role", role.name());
        RoleRecord record = run("read role '" + role + "'", connection -> {
            try (PreparedStatement statement = read.prepare(connection, values)) {
                return store.bounded(connection, statement, () -> {
                    try (ResultSet rows = statement.executeQuery()) {
                        return record(rows);
                    }
                });
            }
        });
        return record.entries(role);
    }

    private static RoleRecord record(ResultSet rows) throws SQLException {
        if (!rows.next()) {
            return RoleRecord.EMPTY;
        }
        long fence = rows.getLong(1);
        long sequence = rows.getLong(2);
        Optional<Lease> lease = Optional.empty();
        long leaseOffset = 0;
        String holder = rows.getString(3);
        if (holder != null) {
            lease = Optional.of(new Lease(MemberId.of(holder), RoleRecord.token(rows.getLong(4)), rows.getLong(5),
                    rows.getLong(6)));
            leaseOffset = rows.getLong(7);
        }
        List<RosterEntry> members = new ArrayList<>();
        do {
            String member = rows.getString(8);
            if (member != null) {
                members.add(new RosterEntry(MemberId.of(member), rows.getLong(9), rows.getLong(10)));
            }
        } while (rows.next());
        return new RoleRecord(fence, sequence, lease, leaseOffset, members);
    }

    @Override
    public Optional<FencingToken> describe(Role role) {
        Map<String, Object> values = Map.of("role", role.name());
        long current = run("read the fence of role '" + role + "'", connection -> {
            try (PreparedStatement statement = fence.prepare(connection, values)) {
                return store.bounded(connection, statement, () -> {
                    try (ResultSet row = statement.executeQuery()) {
                        return row.next() ? row.getLong(1) : 0L;
                    }
                });
            }
        });
        return current == 0 ? Optional.empty() : Optional.of(RoleRecord.token(current));
    }

    @Override
    public Set<Role> roles() {
        return run("list the roles", connection -> {
            try (PreparedStatement statement = roles.prepare(connection, Map.of())) {
                return store.bounded(connection, statement, () -> {
                    Set<Role> all = new TreeSet<>();
                    try (ResultSet rows = statement.executeQuery()) {
                        while (rows.next()) {
                            all.add(Role.of(rows.getString(1)));
                        }
                    }
                    return all;
                });
            }
        });
    }

    private static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet row = statement.executeQuery()) {
            if (!row.next()) {
                throw new SQLException("the statement returned no row");
            }
            return row.getLong(1);
        }
    }

    /**
     * Runs a write as the id store runs one (the synchronous-standby check included), again when the database
     * rolled it back: a rolled-back statement changed nothing, so running it again mints or registers once.
     */
    private <T> T write(String what, JdbcLeaseStore.SqlWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return store.write(what, work);
            } catch (LeaseStoreException e) {
                if (attempt < ATTEMPTS && e.getCause() instanceof SQLException
                        && JdbcDialect.rolledBack((SQLException) e.getCause())) {
                    continue;
                }
                throw failure(e);
            }
        }
    }

    private <T> T run(String what, JdbcLeaseStore.SqlWork<T> work) {
        try {
            return store.run(what, work);
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
    }

    private static CoordinationException failure(RuntimeException e) {
        return e instanceof CoordinationException ? (CoordinationException) e
                : new CoordinationException(e.getMessage(), e);
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "JdbcCoordinationTransport[" + store.describe() + "]";
    }
}
