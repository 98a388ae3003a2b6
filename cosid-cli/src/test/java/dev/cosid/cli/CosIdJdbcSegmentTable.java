package dev.cosid.cli;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import me.ahoo.cosid.segment.IdSegmentDistributor;

/**
 * CosId 2.x's JDBC segment distributor ({@code me.ahoo.cosid.jdbc.JdbcIdSegmentDistributor}), whose
 * module {@code cosid-jdbc} the registry this build reaches does not serve: the table from CosId's
 * published DDL ({@code init-cosid-mysql.sql}), the row inserted with the statement of its
 * {@code JdbcIdSegmentInitializer}, and {@link #nextMaxId(long)} running its two statements in one
 * transaction as its distributor does. CosId's own {@code DefaultSegmentId} and {@code SegmentChainId}
 * run on it.
 */
final class CosIdJdbcSegmentTable implements IdSegmentDistributor {

    /** CosId's DDL for the segment table. */
    static final String MYSQL_DDL = """
            create table if not exists cosid
            (
                name            varchar(100)    not null comment '{namespace}.{name}',
                last_max_id     bigint unsigned not null default 0,
                last_fetch_time bigint unsigned not null default 0,
                constraint cosid_pk
                    primary key (name)
            ) engine = InnoDB""";
    /** {@code JdbcIdSegmentInitializer.INIT_ID_SEGMENT_SQL}. */
    static final String INIT_ID_SEGMENT_SQL
            = "insert into cosid (name, last_max_id,last_fetch_time) value (?, ?,unix_timestamp());";
    /** {@code JdbcIdSegmentDistributor.INCREMENT_MAX_ID_SQL}. */
    static final String INCREMENT_MAX_ID_SQL
            = "update cosid set last_max_id=(last_max_id + ?),last_fetch_time=unix_timestamp() where name = ?;";
    /** {@code JdbcIdSegmentDistributor.FETCH_MAX_ID_SQL}. */
    static final String FETCH_MAX_ID_SQL = "select last_max_id from cosid where name = ?;";

    private final String jdbcUrl;
    private final String namespace;
    private final String name;
    private final long step;

    CosIdJdbcSegmentTable(String jdbcUrl, String namespace, String name, long step) {
        this.jdbcUrl = jdbcUrl;
        this.namespace = namespace;
        this.name = name;
        this.step = step;
    }

    /** Creates the table, if missing, and this name's row at an offset, as CosId's initializer does. */
    CosIdJdbcSegmentTable init(long offset) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(MYSQL_DDL);
            }
            try (PreparedStatement insert = connection.prepareStatement(INIT_ID_SEGMENT_SQL)) {
                insert.setString(1, getNamespacedName());
                insert.setLong(2, offset);
                insert.executeUpdate();
            }
        }
        return this;
    }

    @Override
    public String getNamespace() {
        return namespace;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public long getStep() {
        return step;
    }

    @Override
    public long nextMaxId(long step) {
        IdSegmentDistributor.ensureStep(step);
        try (Connection connection = DriverManager.getConnection(jdbcUrl)) {
            connection.setAutoCommit(false);
            try (PreparedStatement increment = connection.prepareStatement(INCREMENT_MAX_ID_SQL)) {
                increment.setLong(1, step);
                increment.setString(2, getNamespacedName());
                if (increment.executeUpdate() == 0) {
                    throw new IllegalStateException("no row " + getNamespacedName());
                }
            }
            long nextMaxId;
            try (PreparedStatement fetch = connection.prepareStatement(FETCH_MAX_ID_SQL)) {
                fetch.setString(1, getNamespacedName());
                try (ResultSet row = fetch.executeQuery()) {
                    row.next();
                    nextMaxId = row.getLong(1);
                }
            }
            connection.commit();
            return nextMaxId;
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }
}
