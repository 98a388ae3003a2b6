package dev.cosid.jdbc;

import java.util.List;

/** SQLite 3.35 or later: upserts with {@code RETURNING}, time from {@code unixepoch('subsec')}. */
final class SqliteDialect implements JdbcDialect {

    /** SQLite evaluates 'now' once per statement step, so every use in one statement agrees. */
    private static final String NOW = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";

    @Override
    public String name() {
        return "sqlite";
    }

    @Override
    public List<String> schema() {
        return List.of(
                "CREATE TABLE IF NOT EXISTS cosid_namespace (\n"
                        + "  namespace    TEXT    NOT NULL PRIMARY KEY,\n"
                        + "  slot_limit   INTEGER NOT NULL,\n"
                        + "  tolerance_ms INTEGER NOT NULL\n"
                        + ")",
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
                        + ")");
    }

    @Override
    public String insertNamespace() {
        return "INSERT INTO cosid_namespace (namespace, slot_limit, tolerance_ms) VALUES (?, ?, ?) "
                + "ON CONFLICT (namespace) DO NOTHING";
    }

    @Override
    public String selectNamespace() {
        return "SELECT slot_limit, tolerance_ms FROM cosid_namespace WHERE namespace = ?";
    }

    @Override
    public String selectSlots() {
        return "SELECT " + qualified("s") + ", t.now FROM (SELECT " + NOW + " AS now) t "
                + "LEFT JOIN cosid_slot s ON s.namespace = ? ORDER BY s.slot";
    }

    @Override
    public String acquire() {
        // a slot without a row is free with fence 0 and next floor 0: the insert branch
        return "INSERT INTO cosid_slot (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor) "
                + "VALUES (?1, ?2, ?3, ?4, ?3, 1, " + NOW + " + ?5, 0, " + NOW + " + ?5 + ?6, " + NOW + " + ?5 + ?6) "
                + "ON CONFLICT (namespace, slot) DO UPDATE SET "
                + "owner_key = excluded.owner_key, owner_incarnation = excluded.owner_incarnation, "
                + "last_owner_key = excluded.owner_key, fence = cosid_slot.fence + 1, "
                + "expires_at = excluded.expires_at, floor_ms = cosid_slot.next_floor, "
                + "ceiling_ms = max(excluded.ceiling_ms, cosid_slot.next_floor), "
                + "next_floor = max(excluded.ceiling_ms, cosid_slot.next_floor) "
                + "WHERE cosid_slot.owner_key IS NULL OR cosid_slot.expires_at <= " + NOW + " "
                + "RETURNING " + ROW_COLUMNS + ", " + NOW;
    }

    @Override
    public String renew() {
        String expires = "max(expires_at, " + NOW + " + ?1)";
        String ceiling = "max(ceiling_ms, " + expires + " + ?2, floor_ms)";
        return "UPDATE cosid_slot SET expires_at = " + expires + ", ceiling_ms = " + ceiling + ", next_floor = "
                + ceiling + " WHERE namespace = ?3 AND slot = ?4 AND owner_key = ?5 AND owner_incarnation = ?6 "
                + "AND fence = ?7 RETURNING " + ROW_COLUMNS + ", " + NOW;
    }

    @Override
    public String release() {
        return "UPDATE cosid_slot SET owner_key = NULL, owner_incarnation = NULL, "
                + "next_floor = max(floor_ms, min(?1, ceiling_ms)), fence = fence + 1 "
                + "WHERE namespace = ?2 AND slot = ?3 AND owner_key = ?4 AND owner_incarnation = ?5 AND fence = ?6";
    }

    private static String qualified(String alias) {
        StringBuilder columns = new StringBuilder();
        for (String column : ROW_COLUMNS.split(", ")) {
            if (columns.length() > 0) {
                columns.append(", ");
            }
            columns.append(alias).append('.').append(column);
        }
        return columns.toString();
    }
}
