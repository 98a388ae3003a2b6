package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.Names;
import dev.cosid.lease.SegmentRange;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Segment counters kept in Leaf's own {@code leaf_alloc} table, reserved with the statements Leaf's
 * DAO runs, so that Leaf servers and CosId runtimes can reserve from one table at the same time
 * (a rolling replacement) without repeating an id.
 *
 * <p>Leaf reads a row's {@code max_id} after {@code max_id = max_id + step} and hands out
 * {@code max_id - step .. max_id - 1}: the new {@code max_id} itself is the first id of the next
 * range. A reservation here runs Leaf's custom-step form, {@code max_id = max_id + size}, and the same
 * read in one transaction, and takes {@code max_id - size .. max_id - 1} in the same way. The last id
 * reserved for a tag, the counter of {@link dev.cosid.lease.LeaseStore#segments}, is therefore
 * {@code max_id - 1}. No tail is handed back: Leaf would not know of it.
 *
 * <p>Rows are not created: Leaf requires one per {@code biz_tag}, inserted by an operator, and a
 * missing one is an error naming the {@code INSERT}. The segment name is the {@code biz_tag}; the
 * table has no namespaces.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeafAllocTable leaf = new LeafAllocTable(dataSource, "leaf_alloc", "jdbc:mariadb://db/leaf");
 * SegmentRange range = leaf.reserve("orders", "leaf-segment-test", 1_000);
 * }</pre>
 */
public final class LeafAllocTable {

    /** Leaf's default table name. */
    public static final String DEFAULT_TABLE = "leaf_alloc";
    /** A table name, optionally qualified by its schema: nothing that could carry SQL. */
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private final DataSource dataSource;
    private final String table;
    private final String description;
    private final String reserve;
    private final String select;
    private final String raise;
    private final String selectAll;

    /**
     * Uses a Leaf table in a database.
     *
     * @param dataSource the database's connections
     * @param table the table's name, {@code leaf_alloc} unless Leaf was configured otherwise
     * @param description the database's address for messages, without a password
     */
    public LeafAllocTable(DataSource dataSource, String table, String description) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.table = requireTable(table);
        this.description = Objects.requireNonNull(description, "description");
        // Leaf's updateMaxIdByCustomStep and getLeafAlloc, run in one transaction as its DAO runs them
        this.reserve = "UPDATE " + table + " SET max_id = max_id + ? WHERE biz_tag = ?";
        this.select = "SELECT biz_tag, max_id, step FROM " + table + " WHERE biz_tag = ?";
        this.raise = "UPDATE " + table + " SET max_id = ? WHERE biz_tag = ? AND max_id < ?";
        this.selectAll = "SELECT biz_tag, max_id, step FROM " + table;
    }

    /**
     * Checks a table name: letters, digits and underscores, optionally {@code schema.table}.
     *
     * @param table the name
     * @return the name
     */
    public static String requireTable(String table) {
        if (table == null || !TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("Leaf table name '" + table + "' is not a plain SQL name: use letters, "
                    + "digits and underscores, optionally schema.table (Leaf's default is " + DEFAULT_TABLE + ")");
        }
        return table;
    }

    /** @return the table's name */
    public String table() {
        return table;
    }

    /**
     * Reserves the next {@code size} ids of a tag: {@code max_id} moves from {@code m} to
     * {@code m + size} and the answer is {@code m .. m + size - 1}, the ids Leaf would have handed out
     * for that step. Id 0 and below are skipped (a row inserted with {@code max_id} 0).
     *
     * @param namespace the namespace the range is reported in (the table has none)
     * @param bizTag the row's {@code biz_tag}
     * @param size how many ids, at least 1
     * @return the reserved range
     * @throws IllegalStateException when the tag has no row, or its ids would not be positive
     */
    public SegmentRange reserve(String namespace, String bizTag, long size) {
        Names.require(bizTag);
        if (size < 1 || size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a Leaf reservation takes 1 to " + Integer.MAX_VALUE + " ids, not " + size);
        }
        long maxId = transaction("reserve " + size + " ids of biz_tag '" + bizTag + "'", connection -> {
            try (PreparedStatement update = connection.prepareStatement(reserve)) {
                update.setLong(1, size);
                update.setString(2, bizTag);
                if (update.executeUpdate() != 1) {
                    throw new IllegalStateException(missing(bizTag));
                }
            }
            return readMaxId(connection, bizTag);
        });
        long last = maxId - 1;
        if (last < 1) {
            throw new IllegalStateException("biz_tag '" + bizTag + "' in " + table + " of " + description
                    + " holds max_id " + maxId + " after the reservation: its ids would not be positive; set max_id to "
                    + "at least 1");
        }
        return new SegmentRange(namespace, bizTag, Math.max(1, maxId - size), last);
    }

    /**
     * Raises a tag's {@code max_id} so that its counter ({@code max_id - 1}) is at least
     * {@code atLeast}, never lowering it.
     *
     * @param bizTag the row's {@code biz_tag}
     * @param atLeast the lowest counter afterwards
     * @return the counter afterwards
     * @throws IllegalStateException when the tag has no row
     */
    public long raise(String bizTag, long atLeast) {
        Names.require(bizTag);
        long target = Math.addExact(atLeast, 1);
        return transaction("raise biz_tag '" + bizTag + "' to " + atLeast, connection -> {
            try (PreparedStatement update = connection.prepareStatement(raise)) {
                update.setLong(1, target);
                update.setString(2, bizTag);
                update.setLong(3, target);
                update.executeUpdate();
            }
            return readMaxId(connection, bizTag);
        }) - 1;
    }

    /**
     * Reads every tag's counter: {@code max_id - 1}, the largest id Leaf can have handed out for it.
     *
     * @return the counters by {@code biz_tag}; empty when the table has no rows
     * @throws LeaseStoreException when the table is missing or the database cannot be reached
     */
    public SortedMap<String, Long> counters() {
        return transaction("read the rows", connection -> {
            SortedMap<String, Long> counters = new TreeMap<>();
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery(selectAll)) {
                while (rows.next()) {
                    counters.put(rows.getString(1), rows.getLong(2) - 1);
                }
            }
            return counters;
        });
    }

    /**
     * Checks that the table exists, so that a wrong name fails when the store opens.
     *
     * @throws LeaseStoreException naming the table when it is missing
     */
    public void verify() {
        transaction("find the table", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT biz_tag, max_id, step FROM " + table + " WHERE 1 = 0").close();
            }
            return null;
        });
    }

    private long readMaxId(Connection connection, String bizTag) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(select)) {
            query.setString(1, bizTag);
            try (ResultSet row = query.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException(missing(bizTag));
                }
                return row.getLong(2);
            }
        }
    }

    private String missing(String bizTag) {
        return "biz_tag '" + bizTag + "' has no row in " + table + " of " + description + ": insert one as for Leaf, "
                + "e.g. INSERT INTO " + table + " (biz_tag, max_id, step) VALUES ('" + bizTag.replace("'", "''")
                + "', 1, 1000)";
    }

    /** Runs one transaction, as Leaf's DAO does (a session without auto-commit, committed at the end). */
    private <T> T transaction(String what, Work<T> work) {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new LeaseStoreException("cannot " + what + " in " + table + " of " + description + ": "
                    + e.getMessage() + hint(e), e);
        }
    }

    /** Names the fix when the table is missing. */
    private String hint(SQLException e) {
        String state = String.valueOf(e.getSQLState());
        // undefined table: 42P01 PostgreSQL, 42S02 MariaDB/MySQL, 42102 and 42S02 H2
        if (state.equals("42P01") || state.equals("42S02") || state.equals("42102") || state.equals("42S04")) {
            return " (the table " + table + " does not exist: name Leaf's table, or create it with Leaf's DDL)";
        }
        return "";
    }

    @Override
    public String toString() {
        return "LeafAllocTable[" + table + " in " + description + "]";
    }

    @FunctionalInterface
    private interface Work<T> {
        T run(Connection connection) throws SQLException;
    }
}
