package dev.cosid.jdbc;

import java.sql.SQLException;

/** PostgreSQL: {@code INSERT ... ON CONFLICT ... WHERE ... RETURNING}; time from {@code now()}. */
final class PostgresDialect extends JdbcDialect {

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    String namespaceTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_namespace (\n"
                        + "  namespace    VARCHAR(64) NOT NULL PRIMARY KEY,\n"
                        + "  slot_limit   INTEGER     NOT NULL,\n"
                        + "  tolerance_ms BIGINT      NOT NULL\n"
                        + ")";
    }

    @Override
    String layoutTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_layout (\n"
                + "  namespace      VARCHAR(64)  NOT NULL,\n"
                + "  name           VARCHAR(128) NOT NULL,\n"
                + "  epoch_ms       BIGINT       NOT NULL,\n"
                + "  unit_ms        BIGINT       NOT NULL,\n"
                + "  timestamp_bits INTEGER      NOT NULL,\n"
                + "  slot_bits      INTEGER      NOT NULL,\n"
                + "  sequence_bits  INTEGER      NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ")";
    }

    @Override
    String insertLayout() {
        return "INSERT INTO cosid_layout (namespace, name, epoch_ms, unit_ms, timestamp_bits, slot_bits, sequence_bits) "
                + "VALUES (:ns, :name, CAST(:epoch AS BIGINT), CAST(:unit AS BIGINT), CAST(:tbits AS INTEGER), "
                + "CAST(:sbits AS INTEGER), CAST(:qbits AS INTEGER)) ON CONFLICT (namespace, name) DO NOTHING";
    }

    /** undefined_table. */
    @Override
    boolean dataGone(SQLException e) {
        return "42P01".equals(e.getSQLState());
    }

    @Override
    String slotTable() {
        return
                "CREATE TABLE IF NOT EXISTS cosid_slot (\n"
                        + "  namespace         VARCHAR(64)  NOT NULL,\n"
                        + "  slot              INTEGER      NOT NULL,\n"
                        + "  owner_key         VARCHAR(255),\n"
                        + "  owner_incarnation VARCHAR(36),\n"
                        + "  last_owner_key    VARCHAR(255),\n"
                        + "  fence             BIGINT       NOT NULL,\n"
                        + "  expires_at        BIGINT       NOT NULL,\n"
                        + "  floor_ms          BIGINT       NOT NULL,\n"
                        + "  ceiling_ms        BIGINT       NOT NULL,\n"
                        + "  next_floor        BIGINT       NOT NULL,\n"
                        + "  PRIMARY KEY (namespace, slot)\n"
                        + ")";
    }

    /** The start of the statement's transaction: one value for the whole statement. */
    @Override
    String now() {
        return "CAST(floor(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)";
    }

    @Override
    String insertNamespace() {
        return "INSERT INTO cosid_namespace (namespace, slot_limit, tolerance_ms) "
                + "VALUES (:ns, CAST(:limit AS INTEGER), CAST(:tol AS BIGINT)) ON CONFLICT (namespace) DO NOTHING";
    }

    @Override
    String acquire() {
        String now = now();
        String ttl = "CAST(:ttl AS BIGINT)";
        String ceiling = "(" + now + " + " + ttl + " + CAST(:tol AS BIGINT))";
        return "INSERT INTO cosid_slot AS s (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor) "
                + "VALUES (:ns, CAST(:slot AS INTEGER), :key, :inc, :key, 1, " + now + " + " + ttl + ", "
                + "CAST(:guard AS BIGINT) * " + ceiling + ", " + ceiling + ", " + ceiling + ") "
                + "ON CONFLICT (namespace, slot) DO UPDATE SET "
                + "owner_key = EXCLUDED.owner_key, owner_incarnation = EXCLUDED.owner_incarnation, "
                + "last_owner_key = EXCLUDED.owner_key, fence = s.fence + 1, expires_at = EXCLUDED.expires_at, "
                + "floor_ms = CASE WHEN CAST(:takeover AS INTEGER) = 1 AND s.owner_key IS NOT NULL "
                + "THEN GREATEST(s.next_floor, EXCLUDED.ceiling_ms) ELSE s.next_floor END, "
                + "ceiling_ms = GREATEST(EXCLUDED.ceiling_ms, s.next_floor), "
                + "next_floor = GREATEST(EXCLUDED.ceiling_ms, s.next_floor) "
                + "WHERE (s.owner_key IS NULL OR s.expires_at <= " + now + ") AND s.fence = CAST(:seen AS BIGINT) "
                + "RETURNING " + ROW_COLUMNS + ", " + now;
    }

    @Override
    String renew() {
        String expires = "GREATEST(expires_at, " + now() + " + CAST(:ttl AS BIGINT))";
        String ceiling = "GREATEST(ceiling_ms, " + expires + " + CAST(:tol AS BIGINT), floor_ms)";
        return "UPDATE cosid_slot SET expires_at = " + expires + ", ceiling_ms = " + ceiling + ", next_floor = "
                + ceiling + " WHERE namespace = :ns AND slot = CAST(:slot AS INTEGER) AND owner_key = :key "
                + "AND owner_incarnation = :inc AND fence = CAST(:fence AS BIGINT) AND " + namespaceExists() + " "
                + "RETURNING " + ROW_COLUMNS + ", " + now();
    }

    @Override
    String release() {
        return "UPDATE cosid_slot SET owner_key = NULL, owner_incarnation = NULL, "
                + "next_floor = GREATEST(floor_ms, LEAST(CAST(:last AS BIGINT), ceiling_ms)), fence = fence + 1 "
                + "WHERE namespace = :ns AND slot = CAST(:slot AS INTEGER) AND owner_key = :key "
                + "AND owner_incarnation = :inc AND fence = CAST(:fence AS BIGINT) "
                + "RETURNING " + ROW_COLUMNS + ", " + now();
    }

    @Override
    String segmentTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_segment (\n"
                + "  namespace VARCHAR(64)  NOT NULL,\n"
                + "  name      VARCHAR(128) NOT NULL,\n"
                + "  last_id   BIGINT       NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ")";
    }

    /** An overflow of the counter fails the statement (numeric_value_out_of_range), changing nothing. */
    @Override
    String reserveSegment() {
        return segmentUpsert("s.last_id + EXCLUDED.last_id");
    }

    @Override
    String raiseSegment() {
        return segmentUpsert("GREATEST(s.last_id, EXCLUDED.last_id)");
    }

    private static String segmentUpsert(String update) {
        return "INSERT INTO cosid_segment AS s (namespace, name, last_id) SELECT CAST(:ns AS VARCHAR(64)), "
                + "CAST(:name AS VARCHAR(128)), CAST(:size AS BIGINT) WHERE " + namespaceExists()
                + " ON CONFLICT (namespace, name) DO UPDATE SET last_id = " + update + " RETURNING last_id";
    }

    @Override
    String returnSegmentTail() {
        return "UPDATE cosid_segment SET last_id = CAST(:last AS BIGINT) WHERE namespace = :ns AND name = :name "
                + "AND last_id = CAST(:seen AS BIGINT) AND " + namespaceExists();
    }
}
