package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Role;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The JDBC fence ({@link JdbcFence}) inside Spring's transactions: {@link #check(String)} admits the current
 * transaction for this instance's leadership of a role, or refuses it, with one conditional update of the role's
 * row in the fence table on the connection Spring bound to the transaction. Call it first in every transaction whose
 * writes must never land after a successor's: the row's lock, held until the transaction ends, orders two leaders'
 * transactions, and the update refuses a token older than the newest the table has seen. This is fenced work,
 * safe whatever the clocks and pauses do; anything else the leader does is only stopped in time.
 *
 * <p>It needs an actual transaction on the data source ({@code @Transactional}, a {@code TransactionTemplate}),
 * with PostgreSQL's default isolation (read committed) or MariaDB/MySQL's (repeatable read); outside one it refuses
 * with {@link IllegalStateException}, since the row lock would not last until the writes commit. With
 * {@code cosid.leadership.jdbc-fence.create-table} (the default) the first check creates the table if it does not
 * exist, on a connection of its own.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Scheduled(fixedDelay = 1_000)
 * @LeaderOnly("billing")
 * @Transactional
 * public void bill() {
 *     leaderJdbcFence.check("billing");   // FencedException when a successor wrote first: rolled back
 *     jdbc.update("insert into invoice ...");
 * }
 * }</pre>
 */
public final class LeaderJdbcFence {

    private final CosIdLeadership leadership;
    private final DataSource dataSource;
    private final JdbcFence fence;
    private final boolean createTable;
    private final Map<DataSource, Boolean> created = new ConcurrentHashMap<>();

    LeaderJdbcFence(CosIdLeadership leadership, DataSource dataSource, JdbcFence fence, boolean createTable) {
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.fence = Objects.requireNonNull(fence, "fence");
        this.createTable = createTable;
    }

    /** Returns the fence table's name. */
    public String table() {
        return fence.table();
    }

    /**
     * Admits the current transaction on the application's data source for this instance's leadership of a role.
     *
     * @param role the role's name
     * @return the token the transaction was admitted with
     * @throws FencedException when this instance does not lead the role, or the table has seen a newer token: let
     *     the transaction roll back
     * @throws IllegalStateException outside a transaction on the data source
     * @throws org.springframework.dao.DataAccessException when the database fails
     */
    public FencingToken check(String role) {
        return check(role, dataSource);
    }

    /**
     * Admits the current transaction on a data source for this instance's leadership of a role.
     *
     * @param role the role's name
     * @param dataSource the data source whose transaction it is
     * @return the token the transaction was admitted with
     * @throws FencedException when this instance does not lead the role, or the table has seen a newer token
     * @throws IllegalStateException outside a transaction on the data source
     * @throws org.springframework.dao.DataAccessException when the database fails
     */
    public FencingToken check(String role, DataSource dataSource) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(dataSource, "dataSource");
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !(TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder)) {
            throw new IllegalStateException("leaderJdbcFence.check(\"" + role + "\") must run inside a Spring "
                    + "transaction on the data source (@Transactional or a TransactionTemplate): outside one, the "
                    + "fence row's lock would not last until the transaction's writes commit");
        }
        Leadership held = leadership.requireLeading(role, "jdbc");
        ensureTable(dataSource);
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            fence.check(connection, held.role(), held.token());
            return held.token();
        } catch (FencedException e) {
            leadership.refused(Role.of(role), "jdbc");
            throw e;
        } catch (SQLException e) {
            throw translate("check the fence of role '" + role + "' in " + fence.table(), e);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** Creates the table once per data source, on a connection of its own with autocommit on. */
    private void ensureTable(DataSource dataSource) {
        if (!createTable || created.containsKey(dataSource)) {
            return;
        }
        try (Connection own = dataSource.getConnection()) {
            own.setAutoCommit(true);
            fence.createTable(own);
            created.put(dataSource, Boolean.TRUE);
        } catch (SQLException e) {
            throw translate("create the fence table " + fence.table() + " (set "
                    + "cosid.leadership.jdbc-fence.create-table=false where the schema is managed elsewhere)", e);
        }
    }

    private static RuntimeException translate(String task, SQLException e) {
        RuntimeException translated = new SQLExceptionSubclassTranslator().translate(task, null, e);
        return translated != null ? translated : new IllegalStateException("cannot " + task + ": " + e.getMessage(), e);
    }

    @Override
    public String toString() {
        return "LeaderJdbcFence[" + fence.table() + "]";
    }
}
