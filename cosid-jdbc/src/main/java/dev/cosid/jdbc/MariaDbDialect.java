package dev.cosid.jdbc;

import java.sql.SQLException;

/**
 * MariaDB 10.5 or later: {@code INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING}, one statement per
 * operation. MariaDB applies the assignments left to right, each seeing the columns already
 * assigned, so the condition is taken once into {@code @cosid_ok} before any column changes, and
 * every assignment reads the old values it needs before they are overwritten. The last assignment
 * stores that condition in the column {@code applied}, which the statement returns after the row:
 * 1 when it changed the row (or inserted it for an acquire), 0 when the row came back unchanged. (A
 * user variable cannot be returned: MariaDB types it when it prepares the statement.) A renewal or
 * release that finds no row inserts a free one whose next floor is past the caller's window.
 */
final class MariaDbDialect extends JdbcDialect {

    @Override
    public String name() {
        return "mariadb";
    }

    @Override
    String namespaceTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_namespace (\n"
                        + "  namespace    VARCHAR(64) NOT NULL PRIMARY KEY,\n"
                        + "  slot_limit   INT         NOT NULL,\n"
                        + "  tolerance_ms BIGINT      NOT NULL\n"
                        + ") ENGINE = InnoDB DEFAULT CHARSET = utf8mb4";
    }

    @Override
    String layoutTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_layout (\n"
                + "  namespace      VARCHAR(64)  NOT NULL,\n"
                + "  name           VARCHAR(128) NOT NULL,\n"
                + "  epoch_ms       BIGINT       NOT NULL,\n"
                + "  unit_ms        BIGINT       NOT NULL,\n"
                + "  timestamp_bits INT          NOT NULL,\n"
                + "  slot_bits      INT          NOT NULL,\n"
                + "  sequence_bits  INT          NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ") ENGINE = InnoDB DEFAULT CHARSET = utf8mb4";
    }

    @Override
    String insertLayout() {
        return "INSERT INTO cosid_layout (namespace, name, epoch_ms, unit_ms, timestamp_bits, slot_bits, sequence_bits) "
                + "VALUES (:ns, :name, :epoch, :unit, :tbits, :sbits, :qbits) ON DUPLICATE KEY UPDATE namespace = namespace";
    }

    /** ER_NO_SUCH_TABLE. */
    @Override
    boolean dataGone(SQLException e) {
        return e.getErrorCode() == 1146 || "42S02".equals(e.getSQLState());
    }

    @Override
    String slotTable() {
        return
                "CREATE TABLE IF NOT EXISTS cosid_slot (\n"
                        + "  namespace         VARCHAR(64)  NOT NULL,\n"
                        + "  slot              INT          NOT NULL,\n"
                        + "  owner_key         VARCHAR(255) NULL,\n"
                        + "  owner_incarnation VARCHAR(36)  NULL,\n"
                        + "  last_owner_key    VARCHAR(255) NULL,\n"
                        + "  fence             BIGINT       NOT NULL,\n"
                        + "  expires_at        BIGINT       NOT NULL,\n"
                        + "  floor_ms          BIGINT       NOT NULL,\n"
                        + "  ceiling_ms        BIGINT       NOT NULL,\n"
                        + "  next_floor        BIGINT       NOT NULL,\n"
                        + "  applied           TINYINT      NOT NULL DEFAULT 0,\n"
                        + "  PRIMARY KEY (namespace, slot)\n"
                        + ") ENGINE = InnoDB DEFAULT CHARSET = utf8mb4";
    }

    /** {@code NOW(3)} is fixed for the whole statement. */
    @Override
    String now() {
        return "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)";
    }

    @Override
    boolean reportsApplied() {
        return true;
    }

    @Override
    String insertNamespace() {
        return "INSERT INTO cosid_namespace (namespace, slot_limit, tolerance_ms) VALUES (:ns, :limit, :tol) "
                + "ON DUPLICATE KEY UPDATE namespace = namespace";
    }

    @Override
    String acquire() {
        String now = now();
        String ceiling = "(" + now + " + :ttl + :tol)";
        return "INSERT INTO cosid_slot (namespace, slot, owner_key, owner_incarnation, last_owner_key, fence, "
                + "expires_at, floor_ms, ceiling_ms, next_floor, applied) "
                + "VALUES (:ns, :slot, :key, :inc, :key, 1, " + now + " + :ttl, :guard * " + ceiling + ", " + ceiling
                + ", " + ceiling + ", 1) ON DUPLICATE KEY UPDATE "
                + "fence = IF(@cosid_ok := ((owner_key IS NULL OR expires_at <= " + now + ") AND fence = :seen), "
                + "fence + 1, fence), "
                // owner_key and next_floor still hold the old row here: MariaDB assigns left to right
                + "floor_ms = IF(@cosid_ok, IF(:takeover = 1 AND owner_key IS NOT NULL, GREATEST(next_floor, "
                + ceiling + "), next_floor), floor_ms), "
                + "ceiling_ms = IF(@cosid_ok, GREATEST(" + ceiling + ", next_floor), ceiling_ms), "
                + "next_floor = IF(@cosid_ok, ceiling_ms, next_floor), "
                + "expires_at = IF(@cosid_ok, " + now + " + :ttl, expires_at), "
                + "owner_incarnation = IF(@cosid_ok, VALUES(owner_incarnation), owner_incarnation), "
                + "last_owner_key = IF(@cosid_ok, VALUES(owner_key), last_owner_key), "
                + "owner_key = IF(@cosid_ok, VALUES(owner_key), owner_key), applied = @cosid_ok "
                + "RETURNING " + ROW_COLUMNS + ", " + now + ", applied";
    }

    @Override
    String renew() {
        String now = now();
        return "INSERT INTO cosid_slot (namespace, slot, fence, expires_at, floor_ms, ceiling_ms, next_floor, applied) "
                + "VALUES (:ns, :slot, 0, 0, 0, 0, " + now + " + :ttl + :tol, 0) ON DUPLICATE KEY UPDATE "
                + "expires_at = IF(@cosid_ok := (owner_key <=> :key AND owner_incarnation <=> :inc AND fence = :fence "
                + "AND " + namespaceExists() + "), "
                + "GREATEST(expires_at, " + now + " + :ttl), expires_at), "
                + "ceiling_ms = IF(@cosid_ok, GREATEST(ceiling_ms, expires_at + :tol, floor_ms), ceiling_ms), "
                + "next_floor = IF(@cosid_ok, ceiling_ms, next_floor), applied = @cosid_ok "
                + "RETURNING " + ROW_COLUMNS + ", " + now + ", applied";
    }

    @Override
    String release() {
        return "INSERT INTO cosid_slot (namespace, slot, fence, expires_at, floor_ms, ceiling_ms, next_floor, applied) "
                + "VALUES (:ns, :slot, 0, 0, 0, 0, :ceiling, 0) ON DUPLICATE KEY UPDATE "
                + "next_floor = IF(@cosid_ok := (owner_key <=> :key AND owner_incarnation <=> :inc AND fence = :fence), "
                + "GREATEST(floor_ms, LEAST(:last, ceiling_ms)), next_floor), "
                + "fence = IF(@cosid_ok, fence + 1, fence), "
                + "owner_incarnation = IF(@cosid_ok, NULL, owner_incarnation), "
                + "owner_key = IF(@cosid_ok, NULL, owner_key), applied = @cosid_ok "
                + "RETURNING " + ROW_COLUMNS + ", " + now() + ", applied";
    }

    /** Names are compared byte for byte ({@code utf8mb4_bin}): "Order" and "order" are two counters. */
    @Override
    String segmentTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_segment (\n"
                + "  namespace VARCHAR(64)  NOT NULL,\n"
                + "  name      VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,\n"
                + "  last_id   BIGINT       NOT NULL,\n"
                + "  PRIMARY KEY (namespace, name)\n"
                + ") ENGINE = InnoDB DEFAULT CHARSET = utf8mb4";
    }

    /** An overflow of the counter fails the statement (BIGINT value is out of range), changing nothing. */
    @Override
    String reserveSegment() {
        return segmentUpsert("last_id + VALUES(last_id)");
    }

    @Override
    String raiseSegment() {
        return segmentUpsert("GREATEST(last_id, VALUES(last_id))");
    }

    private static String segmentUpsert(String update) {
        return "INSERT INTO cosid_segment (namespace, name, last_id) SELECT :ns, :name, :size FROM DUAL WHERE "
                + namespaceExists() + " ON DUPLICATE KEY UPDATE last_id = " + update + " RETURNING last_id";
    }
}
