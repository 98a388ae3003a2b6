package dev.cosid.jdbc;

import java.sql.SQLException;

/** SQLite 3.35 or later: upserts with {@code RETURNING}; time from {@code unixepoch('subsec')}. */
final class SqliteDialect extends JdbcDialect {

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    String namespaceTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_namespace (\n"
                        + "  namespace    TEXT    NOT NULL PRIMARY KEY,\n"
                        + "  slot_limit   INTEGER NOT NULL,\n"
                        + "  tolerance_ms INTEGER NOT NULL\n"
                        + ")";
    }

    @Override
    String layoutTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_layout (\n"
                + "  namespace      TEXT    NOT NULL,\n"
                + "  name           TEXT    NOT NULL,\n"
                + "  epoch_ms       INTEGER NOT NULL,\n"
                + "  unit_ms        INTEGER NOT NULL,\n"
                + "  timestamp_bits INTEGER NOT NULL,\n"
                + "  slot_bits      INTEGER NOT NULL,\n"
                + "  sequence_bits  INTEGER NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ")";
    }

    @Override
    String insertLayout() {
        return "INSERT INTO cosid_layout (namespace, name, epoch_ms, unit_ms, timestamp_bits, slot_bits, sequence_bits) "
                + "VALUES (:ns, :name, :epoch, :unit, :tbits, :sbits, :qbits) ON CONFLICT (namespace, name) DO NOTHING";
    }

    /** NOTADB (26), CORRUPT (11), or a table that is not there. */
    @Override
    boolean dataGone(SQLException e) {
        return e.getErrorCode() == 26 || e.getErrorCode() == 11
                || (e.getErrorCode() == 1 && String.valueOf(e.getMessage()).contains("no such table"));
    }

    @Override
    String slotTable() {
        return
                "CREATE TABLE IF NOT EXISTS cosid_slot (\n"
                        + "  namespace         TEXT    NOT NULL,\n"
                        + "  slot              INTEGER NOT NULL,\n"
                        + "  owner_key         TEXT,\n"
                        + "  owner_incarnation TEXT,\n"
                        + "  last_owner_key    TEXT,\n"
                        + "  fence             INTEGER NOT NULL,\n"
                        + "  expires_at        INTEGER NOT NULL,\n"
                        + "  floor_ms          INTEGER NOT NULL,\n"
                        + "  ceiling_ms        INTEGER NOT NULL,\n"
                        + "  next_floor        INTEGER NOT NULL,\n"
                        + "  PRIMARY KEY (namespace, slot)\n"
                        + ")";
    }

    /** SQLite evaluates 'now' once per statement step, so every use in one statement agrees. */
    @Override
    String now() {
        return "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
    }

    @Override
    String insertNamespace() {
        return "INSERT INTO cosid_namespace (namespace, slot_limit, tolerance_ms) VALUES (:ns, :limit, :tol) "
                + "ON CONFLICT (namespace) DO NOTHING";
    }

    @Override
    String acquire() {
        String now = now();
        String ceiling = "(" + now + " + :ttl + :tol)";
        // a slot without a row is free with fence 0: the insert branch
        return "INSERT INTO cosid_slot (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor) "
                + "VALUES (:ns, :slot, :key, :inc, :key, 1, " + now + " + :ttl, :guard * " + ceiling + ", " + ceiling
                + ", " + ceiling + ") "
                + "ON CONFLICT (namespace, slot) DO UPDATE SET "
                + "owner_key = excluded.owner_key, owner_incarnation = excluded.owner_incarnation, "
                + "last_owner_key = excluded.owner_key, fence = cosid_slot.fence + 1, "
                + "expires_at = excluded.expires_at, floor_ms = CASE WHEN :takeover = 1 AND cosid_slot.owner_key "
                + "IS NOT NULL THEN max(cosid_slot.next_floor, excluded.ceiling_ms) ELSE cosid_slot.next_floor END, "
                + "ceiling_ms = max(excluded.ceiling_ms, cosid_slot.next_floor), "
                + "next_floor = max(excluded.ceiling_ms, cosid_slot.next_floor) "
                + "WHERE (cosid_slot.owner_key IS NULL OR cosid_slot.expires_at <= " + now + ") "
                + "AND cosid_slot.fence = :seen "
                + "RETURNING " + ROW_COLUMNS + ", " + now;
    }

    @Override
    String renew() {
        String expires = "max(expires_at, " + now() + " + :ttl)";
        String ceiling = "max(ceiling_ms, " + expires + " + :tol, floor_ms)";
        return "UPDATE cosid_slot SET expires_at = " + expires + ", ceiling_ms = " + ceiling + ", next_floor = "
                + ceiling + " WHERE namespace = :ns AND slot = :slot AND owner_key = :key "
                + "AND owner_incarnation = :inc AND fence = :fence AND " + namespaceExists() + " RETURNING " + ROW_COLUMNS
                + ", " + now();
    }

    @Override
    String release() {
        return "UPDATE cosid_slot SET owner_key = NULL, owner_incarnation = NULL, "
                + "next_floor = max(floor_ms, min(:last, ceiling_ms)), fence = fence + 1 "
                + "WHERE namespace = :ns AND slot = :slot AND owner_key = :key AND owner_incarnation = :inc "
                + "AND fence = :fence RETURNING " + ROW_COLUMNS + ", " + now();
    }

    @Override
    String segmentTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_segment (\n"
                + "  namespace TEXT    NOT NULL,\n"
                + "  name      TEXT    NOT NULL,\n"
                + "  last_id   INTEGER NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ")";
    }

    /** SQLite turns an integer overflow into a float: the condition keeps the counter from passing the largest id. */
    @Override
    String reserveSegment() {
        return segmentUpsert("cosid_segment.last_id + excluded.last_id",
                "cosid_segment.last_id <= 9223372036854775807 - excluded.last_id");
    }

    @Override
    String raiseSegment() {
        return segmentUpsert("max(cosid_segment.last_id, excluded.last_id)", "1 = 1");
    }

    private static String segmentUpsert(String update, String condition) {
        // the SELECT has a WHERE, so SQLite reads ON CONFLICT as the upsert clause and not as a join
        return "INSERT INTO cosid_segment (namespace, name, last_id) SELECT :ns, :name, :size WHERE "
                + namespaceExists() + " ON CONFLICT (namespace, name) DO UPDATE SET last_id = " + update
                + " WHERE " + condition + " RETURNING last_id";
    }
}
