package dev.cosid.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Leaf's segment DAO, run over plain JDBC as {@code IDAllocDaoImpl} runs it through MyBatis: a session
 * without auto-commit, {@code updateMaxId} (or {@code updateMaxIdByCustomStep}), then
 * {@code getLeafAlloc}, then a commit. Leaf's {@code SegmentIDGenImpl} then hands out
 * {@code max_id - step .. max_id - 1}.
 */
final class LeafPeer implements AutoCloseable {

    /** Leaf's published DDL, {@code scripts/leaf_alloc.sql}, for MySQL (and MariaDB). */
    static final String MYSQL_DDL = """
            CREATE TABLE `leaf_alloc` (
              `biz_tag` varchar(128)  NOT NULL DEFAULT '',
              `max_id` bigint(20) NOT NULL DEFAULT '1',
              `step` int(11) NOT NULL,
              `description` varchar(256)  DEFAULT NULL,
              `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
              PRIMARY KEY (`biz_tag`)
            ) ENGINE=InnoDB""";
    /** The same table in PostgreSQL's types (Leaf publishes only the MySQL script). */
    static final String POSTGRESQL_DDL = """
            CREATE TABLE leaf_alloc (
              biz_tag varchar(128) NOT NULL DEFAULT '',
              max_id bigint NOT NULL DEFAULT 1,
              step int NOT NULL,
              description varchar(256) DEFAULT NULL,
              update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
              PRIMARY KEY (biz_tag)
            )""";

    private final Connection connection;

    LeafPeer(String jdbcUrl) throws SQLException {
        connection = DriverManager.getConnection(jdbcUrl);
    }

    /** {@code updateMaxIdAndGetLeafAlloc}: the ids Leaf hands out for the tag's own step, first and last. */
    long[] step(String tag) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?")) {
            update.setString(1, tag);
            update.executeUpdate();
        }
        long[] range = read(tag, -1);
        connection.commit();
        return range;
    }

    /** {@code updateMaxIdByCustomStepAndGetLeafAlloc}: Leaf's dynamic step. */
    long[] customStep(String tag, int step) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement update = connection.prepareStatement(
                "UPDATE leaf_alloc SET max_id = max_id + ? WHERE biz_tag = ?")) {
            update.setInt(1, step);
            update.setString(2, tag);
            update.executeUpdate();
        }
        long[] range = read(tag, step);
        connection.commit();
        return range;
    }

    /** {@code getLeafAlloc}, then the range {@code SegmentIDGenImpl.updateSegmentFromDb} makes of it. */
    private long[] read(String tag, int customStep) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?")) {
            select.setString(1, tag);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("no row for " + tag);
                }
                long maxId = row.getLong(2);
                long step = customStep < 0 ? row.getInt(3) : customStep;
                return new long[] {maxId - step, maxId - 1};
            }
        }
    }

    /** Runs statements on a fresh connection with auto-commit. */
    static void run(String jdbcUrl, String... statements) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
             java.sql.Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
