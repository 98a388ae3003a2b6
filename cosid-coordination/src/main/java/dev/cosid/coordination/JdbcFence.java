package dev.cosid.coordination;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Fences a leader's writes to a relational database: inside the leader's own transaction, one conditional
 * update of the role's row in a small fence table refuses a token older than the newest the table has seen.
 *
 * <p>Why a deposed leader's transaction cannot commit after its successor's first: both update the same row,
 * and the database holds that row's lock until each transaction ends. If the successor updates first, its
 * newer token is in the row when the deposed leader's update runs (at once, or after the lock is released
 * on the successor's commit), so the update matches no row and {@link #check} throws {@link FencedException}
 * before the deposed leader's writes can commit. If the deposed leader updates first, the successor's update
 * waits for that lock, so the deposed leader's transaction commits (or rolls back) before the successor's
 * first. Either way its writes never land after the successor's. This needs the default isolation of
 * PostgreSQL (read committed) or of MariaDB/MySQL (repeatable read, whose updates read the newest committed
 * row); under PostgreSQL's repeatable read or serializable the later update fails with a serialization
 * error instead, which is refused just the same and should be retried as a new transaction.
 *
 * <p>The table holds one row per role: {@code role}, {@code producer_id}, {@code producer_epoch} (the
 * token's two parts; a store-backed leadership uses {@code producer_id} alone). A role's row is inserted
 * by its first check, under a savepoint so that two leaders inserting at once do not abort the caller's
 * transaction. Works on PostgreSQL, MariaDB/MySQL, H2 and SQLite.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * JdbcFence fence = JdbcFence.standard();
 * try (Connection c = dataSource.getConnection()) {
 *     fence.createTable(c);
 *     c.setAutoCommit(false);
 *     fence.check(c, leadership.role(), leadership.token()); // throws FencedException when deposed
 *     insertInvoice(c, invoice);
 *     c.commit();
 * }
 * }</pre>
 */
public final class JdbcFence {

    /** The table name {@link #standard()} uses. */
    public static final String DEFAULT_TABLE = "cosid_leader_fence";
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final String table;
    private final String update;
    private final String select;
    private final String insert;

    private JdbcFence(String table) {
        this.table = table;
        this.update = "UPDATE " + table + " SET producer_id = ?, producer_epoch = ? WHERE role = ? AND "
                + "(producer_id < ? OR (producer_id = ? AND producer_epoch <= ?))";
        this.select = "SELECT producer_id, producer_epoch FROM " + table + " WHERE role = ?";
        this.insert = "INSERT INTO " + table + " (role, producer_id, producer_epoch) VALUES (?, ?, ?)";
    }

    /** Returns the fence on the table {@value #DEFAULT_TABLE}. */
    public static JdbcFence standard() {
        return new JdbcFence(DEFAULT_TABLE);
    }

    /**
     * Returns the fence on a table of another name.
     *
     * @param table a table name, optionally with a schema: letters, digits and underscores
     * @return the fence
     * @throws IllegalArgumentException naming the table when it is not such a name
     */
    public static JdbcFence onTable(String table) {
        Objects.requireNonNull(table, "table");
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("fence table '" + table + "' is not a name of letters, digits and "
                    + "underscores (optionally schema.table)");
        }
        return new JdbcFence(table);
    }

    /** Returns the table's name. */
    public String table() {
        return table;
    }

    /**
     * Creates the table if it does not exist, in its own statement (commit it, or run it with autocommit on).
     *
     * @param connection a connection
     * @throws SQLException when the database refuses
     */
    public void createTable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + table + " (role VARCHAR(249) NOT NULL PRIMARY KEY, "
                    + "producer_id BIGINT NOT NULL, producer_epoch INTEGER NOT NULL)");
        }
    }

    /**
     * Admits the caller's transaction for a token, or refuses it: run it first in every transaction whose
     * writes must not land after a successor's, then write, then commit. The row stays locked until the
     * transaction ends, which is what orders two leaders' transactions.
     *
     * @param connection the caller's connection, inside its transaction (autocommit off)
     * @param role the role
     * @param token the leadership's token
     * @throws FencedException naming both tokens when the table has seen a newer one: roll back
     * @throws IllegalStateException when autocommit is on, since the fence would then order nothing
     * @throws SQLException when the database fails
     */
    public void check(Connection connection, Role role, FencingToken token) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(token, "token");
        if (!token.minted()) {
            throw new IllegalArgumentException("no leadership has token " + token);
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the fence of role '" + role + "' must run inside the caller's "
                    + "transaction: autocommit is on, so the row lock would not last until the caller's writes commit");
        }
        if (update(connection, role, token) == 1) {
            return;
        }
        FencingToken seen = seen(connection, role);
        if (seen == null) {
            Savepoint savepoint = connection.setSavepoint();
            try (PreparedStatement statement = connection.prepareStatement(insert)) {
                statement.setString(1, role.name());
                statement.setLong(2, token.producerId());
                statement.setInt(3, token.producerEpoch());
                statement.executeUpdate();
                connection.releaseSavepoint(savepoint);
                return;
            } catch (SQLException raced) {
                // another leader inserted the row first: its lock or token decides, as for an existing row
                connection.rollback(savepoint);
            }
            if (update(connection, role, token) == 1) {
                return;
            }
            seen = seen(connection, role);
        }
        // seen is null only where this transaction's snapshot predates the row (MariaDB's repeatable read); the
        // update, which reads the newest committed row, refused the token all the same
        throw new FencedException("role '" + role + "': token " + token + " is older than token "
                + (seen == null ? "another leader committed" : seen) + " that the fence table " + table
                + " has seen; roll back, a newer leader writes");
    }

    private int update(Connection connection, Role role, FencingToken token) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(update)) {
            statement.setLong(1, token.producerId());
            statement.setInt(2, token.producerEpoch());
            statement.setString(3, role.name());
            statement.setLong(4, token.producerId());
            statement.setLong(5, token.producerId());
            statement.setInt(6, token.producerEpoch());
            return statement.executeUpdate();
        }
    }

    private FencingToken seen(Connection connection, Role role) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(select)) {
            statement.setString(1, role.name());
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return null;
                }
                return new FencingToken(row.getLong(1), (short) row.getInt(2));
            }
        }
    }

    /**
     * Reads the newest token the table has seen for a role.
     *
     * @param connection a connection
     * @param role the role
     * @return the token, or {@link FencingToken#NO_EPOCH} when the role has no row
     * @throws SQLException when the database fails
     */
    public FencingToken newest(Connection connection, Role role) throws SQLException {
        FencingToken seen = seen(connection, role);
        return seen == null ? FencingToken.NO_EPOCH : seen;
    }

    @Override
    public String toString() {
        return "JdbcFence[" + table + "]";
    }
}
