package dev.cosid.jdbc;

import java.sql.SQLException;

/** H2 2.x: {@code SELECT ... FROM FINAL TABLE (MERGE | UPDATE ...)}; time from {@code CURRENT_TIMESTAMP}. */
final class H2Dialect extends JdbcDialect {

    @Override
    public String name() {
        return "h2";
    }

    @Override
    String namespaceTable() {
        return JdbcDialect.POSTGRESQL.namespaceTable();
    }

    @Override
    String slotTable() {
        return JdbcDialect.POSTGRESQL.slotTable();
    }

    @Override
    String layoutTable() {
        return JdbcDialect.POSTGRESQL.layoutTable();
    }

    @Override
    String insertLayout() {
        return "MERGE INTO cosid_layout l USING (VALUES (CAST(:ns AS VARCHAR(64)), CAST(:name AS VARCHAR(128)), "
                + "CAST(:epoch AS BIGINT), CAST(:unit AS BIGINT), CAST(:tbits AS INTEGER), CAST(:sbits AS INTEGER), "
                + "CAST(:qbits AS INTEGER))) AS x (namespace, name, epoch_ms, unit_ms, timestamp_bits, slot_bits, "
                + "sequence_bits) ON l.namespace = x.namespace AND l.name = x.name WHEN NOT MATCHED THEN INSERT "
                + "(namespace, name, epoch_ms, unit_ms, timestamp_bits, slot_bits, sequence_bits) VALUES (x.namespace, "
                + "x.name, x.epoch_ms, x.unit_ms, x.timestamp_bits, x.slot_bits, x.sequence_bits)";
    }

    /** TABLE_OR_VIEW_NOT_FOUND and its variants. */
    @Override
    boolean dataGone(SQLException e) {
        return "42S02".equals(e.getSQLState()) || (e.getErrorCode() >= 42102 && e.getErrorCode() <= 42104);
    }

    /** H2 keeps {@code CURRENT_TIMESTAMP} fixed for the statement's transaction. */
    @Override
    String now() {
        return "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP(3)) * 1000 AS BIGINT)";
    }

    @Override
    String insertNamespace() {
        return "MERGE INTO cosid_namespace n USING (VALUES (CAST(:ns AS VARCHAR(64)), CAST(:limit AS INTEGER), "
                + "CAST(:tol AS BIGINT))) AS x (namespace, slot_limit, tolerance_ms) ON n.namespace = x.namespace "
                + "WHEN NOT MATCHED THEN INSERT (namespace, slot_limit, tolerance_ms) "
                + "VALUES (x.namespace, x.slot_limit, x.tolerance_ms)";
    }

    @Override
    String acquire() {
        String now = now();
        String ttl = "CAST(:ttl AS BIGINT)";
        String ceiling = "(" + now + " + " + ttl + " + CAST(:tol AS BIGINT))";
        return "SELECT " + ROW_COLUMNS + ", " + now + " FROM FINAL TABLE (MERGE INTO cosid_slot s USING (VALUES ("
                + "CAST(:ns AS VARCHAR(64)), CAST(:slot AS INTEGER), CAST(:key AS VARCHAR(255)), "
                + "CAST(:inc AS VARCHAR(36)))) AS x (namespace, slot, owner_key, owner_incarnation) "
                + "ON s.namespace = x.namespace AND s.slot = x.slot "
                + "WHEN MATCHED AND (s.owner_key IS NULL OR s.expires_at <= " + now + ") "
                + "AND s.fence = CAST(:seen AS BIGINT) THEN UPDATE SET "
                + "owner_key = x.owner_key, owner_incarnation = x.owner_incarnation, last_owner_key = x.owner_key, "
                + "fence = s.fence + 1, expires_at = " + now + " + " + ttl + ", floor_ms = CASE WHEN "
                + "CAST(:takeover AS INTEGER) = 1 AND s.owner_key IS NOT NULL THEN GREATEST(s.next_floor, " + ceiling
                + ") ELSE s.next_floor END, "
                + "ceiling_ms = GREATEST(" + ceiling + ", s.next_floor), "
                + "next_floor = GREATEST(" + ceiling + ", s.next_floor) "
                + "WHEN NOT MATCHED THEN INSERT (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor) VALUES (x.namespace, x.slot, x.owner_key, "
                + "x.owner_incarnation, x.owner_key, 1, " + now + " + " + ttl + ", CAST(:guard AS BIGINT) * "
                + ceiling + ", " + ceiling + ", " + ceiling + "))";
    }

    @Override
    String renew() {
        String expires = "GREATEST(expires_at, " + now() + " + CAST(:ttl AS BIGINT))";
        String ceiling = "GREATEST(ceiling_ms, " + expires + " + CAST(:tol AS BIGINT), floor_ms)";
        return "SELECT " + ROW_COLUMNS + ", " + now() + " FROM FINAL TABLE (UPDATE cosid_slot SET expires_at = "
                + expires + ", ceiling_ms = " + ceiling + ", next_floor = " + ceiling
                + " WHERE namespace = :ns AND slot = :slot AND owner_key = :key AND owner_incarnation = :inc "
                + "AND fence = :fence AND " + namespaceExists() + ")";
    }

    @Override
    String release() {
        return "SELECT " + ROW_COLUMNS + ", " + now() + " FROM FINAL TABLE (UPDATE cosid_slot SET owner_key = NULL, "
                + "owner_incarnation = NULL, next_floor = GREATEST(floor_ms, LEAST(CAST(:last AS BIGINT), ceiling_ms)), "
                + "fence = fence + 1 WHERE namespace = :ns AND slot = :slot AND owner_key = :key "
                + "AND owner_incarnation = :inc AND fence = :fence)";
    }

    @Override
    String segmentTable() {
        return JdbcDialect.POSTGRESQL.segmentTable();
    }

    /** An overflow of the counter fails the statement (numeric value out of range), changing nothing. */
    @Override
    String reserveSegment() {
        return segmentMerge("s.last_id + x.amount");
    }

    @Override
    String raiseSegment() {
        return segmentMerge("GREATEST(s.last_id, x.amount)");
    }

    private static String segmentMerge(String update) {
        return "SELECT last_id FROM FINAL TABLE (MERGE INTO cosid_segment s USING (SELECT v.namespace, v.name, v.amount "
                + "FROM (VALUES (CAST(:ns AS VARCHAR(64)), CAST(:name AS VARCHAR(128)), CAST(:size AS BIGINT))) "
                + "AS v (namespace, name, amount) WHERE " + namespaceExists() + ") AS x "
                + "ON s.namespace = x.namespace AND s.name = x.name "
                + "WHEN MATCHED THEN UPDATE SET last_id = " + update + " "
                + "WHEN NOT MATCHED THEN INSERT (namespace, name, last_id) VALUES (x.namespace, x.name, x.amount))";
    }

    @Override
    String returnSegmentTail() {
        return "UPDATE cosid_segment SET last_id = CAST(:last AS BIGINT) WHERE namespace = :ns AND name = :name "
                + "AND last_id = CAST(:seen AS BIGINT) AND " + namespaceExists();
    }
}
