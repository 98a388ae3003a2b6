package dev.cosid.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.LongStream;

/**
 * A Leaf deployment's segment table: created with Leaf's published DDL ({@code scripts/leaf_alloc.sql},
 * MySQL; the same columns in PostgreSQL's types), rows inserted as a Leaf operator does, and segments
 * allocated with the statements of Leaf's {@code IDAllocDaoImpl.updateMaxIdAndGetLeafAlloc} over plain
 * JDBC (update, select, commit), each handing out {@code max_id - step .. max_id - 1} as Leaf's
 * {@code SegmentIDGenImpl} does.
 */
final class LeafTable {

    static final String MYSQL_DDL = """
            CREATE TABLE `leaf_alloc` (
              `biz_tag` varchar(128)  NOT NULL DEFAULT '',
              `max_id` bigint(20) NOT NULL DEFAULT '1',
              `step` int(11) NOT NULL,
              `description` varchar(256)  DEFAULT NULL,
              `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
              PRIMARY KEY (`biz_tag`)
            ) ENGINE=InnoDB""";
    static final String POSTGRESQL_DDL = """
            CREATE TABLE leaf_alloc (
              biz_tag varchar(128) NOT NULL DEFAULT '',
              max_id bigint NOT NULL DEFAULT 1,
              step int NOT NULL,
              description varchar(256) DEFAULT NULL,
              update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
              PRIMARY KEY (biz_tag)
            )""";

    private LeafTable() {
    }

    /** Drops and creates {@code leaf_alloc}, then inserts one row per tag with {@code max_id} 1. */
    static void create(String jdbcUrl, String ddl, String tag, int step, Object... more) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
             Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS leaf_alloc");
            statement.execute(ddl);
            statement.execute("INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('" + tag + "', 1, "
                    + step + ", 'Test leaf Segment Mode Get Id')");
            for (int i = 0; i < more.length; i += 2) {
                statement.execute("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('" + more[i] + "', 1, "
                        + more[i + 1] + ")");
            }
        }
    }

    /** Allocates {@code segments} segments of a tag as Leaf does and returns every id Leaf hands out of them. */
    static long[] allocate(String jdbcUrl, String tag, int segments) throws SQLException {
        LongStream.Builder ids = LongStream.builder();
        try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
            connection.setAutoCommit(false);
            for (int i = 0; i < segments; i++) {
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?")) {
                    update.setString(1, tag);
                    update.executeUpdate();
                }
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT biz_tag, max_id, step FROM leaf_alloc WHERE biz_tag = ?")) {
                    select.setString(1, tag);
                    try (ResultSet row = select.executeQuery()) {
                        row.next();
                        long maxId = row.getLong(2);
                        for (long id = maxId - row.getInt(3); id < maxId; id++) {
                            ids.add(id);
                        }
                    }
                }
                connection.commit();
            }
        }
        return ids.build().toArray();
    }
}
