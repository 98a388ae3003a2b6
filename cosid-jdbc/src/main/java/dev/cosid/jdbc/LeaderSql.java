package dev.cosid.jdbc;

import java.util.List;

/**
 * The SQL of leadership on one database: two tables, {@code cosid_leader} (one row per role: its fence, its
 * sequence and its lease) and {@code cosid_leader_member} (one row per registered member), and one statement per
 * operation whose {@code WHERE} is the condition. A registration takes two statements in one transaction where
 * the database has no data-modifying common table expression (all but PostgreSQL); the role row's lock orders
 * them.
 *
 * <p>Parameters are named: {@code :role}, {@code :member}, {@code :at}, {@code :seq}, {@code :fence},
 * {@code :granted}, {@code :deadline}, {@code :atmost} and {@code :atleast}.
 */
final class LeaderSql {

    /** The columns {@link #read()} returns, in this order. */
    static final String READ_COLUMNS = "r.fence, r.seq, r.lease_member, r.lease_fence, r.lease_granted_at, "
            + "r.lease_deadline, r.lease_seq, m.member, m.registered_at, m.seq";

    private final JdbcDialect dialect;
    private final String name;

    LeaderSql(JdbcDialect dialect) {
        this.dialect = dialect;
        this.name = dialect.name();
    }

    private boolean mariadb() {
        return name.equals("mariadb");
    }

    private boolean postgres() {
        return name.equals("postgresql");
    }

    private boolean h2() {
        return name.equals("h2");
    }

    /** A role or member name: at most 249 UTF-8 bytes, compared byte for byte. */
    private String nameColumn() {
        return mariadb() ? "VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" : "VARCHAR(249)";
    }

    private String tableOptions() {
        return mariadb() ? " ENGINE = InnoDB DEFAULT CHARSET = utf8mb4" : "";
    }

    /** The DDL of the two tables; each statement is safe to run again. */
    List<String> schema() {
        return List.of(roleTable(), memberTable());
    }

    String roleTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_leader (\n"
                + "  role             " + nameColumn() + " NOT NULL PRIMARY KEY,\n"
                + "  fence            BIGINT NOT NULL,\n"
                + "  seq              BIGINT NOT NULL,\n"
                + "  lease_member     " + nameColumn() + ",\n"
                + "  lease_fence      BIGINT,\n"
                + "  lease_granted_at BIGINT,\n"
                + "  lease_deadline   BIGINT,\n"
                + "  lease_seq        BIGINT,\n"
                + "  lease_written_at BIGINT\n"
                + ")" + tableOptions();
    }

    String memberTable() {
        return "CREATE TABLE IF NOT EXISTS cosid_leader_member (\n"
                + "  role          " + nameColumn() + " NOT NULL,\n"
                + "  member        " + nameColumn() + " NOT NULL,\n"
                + "  registered_at BIGINT NOT NULL,\n"
                + "  seq           BIGINT NOT NULL,\n"
                + "  PRIMARY KEY (role, member)\n"
                + ")" + tableOptions();
    }

    /** A statement that fails when either table is missing. */
    String probe() {
        return "SELECT COUNT(*) FROM cosid_leader r LEFT JOIN cosid_leader_member m ON m.role = r.role WHERE 1 = 0";
    }

    private String role() {
        return "CAST(:role AS VARCHAR(249))";
    }

    /**
     * Mints: the role's fence grows by one (a role without a row starts at 1), and the statement returns it.
     * One upsert: its row lock orders concurrent mints, so each gets a fence of its own.
     */
    String mint() {
        return upsertRole("1, 0", "fence");
    }

    /** Moves the role's sequence on by one (a role without a row starts with fence 0) and returns it. */
    String nextSequence() {
        return upsertRole("0, 1", "seq");
    }

    /** Inserts the role's row with a fence and a sequence, or moves one column of an existing row on by one. */
    private String upsertRole(String fenceAndSeq, String column) {
        if (h2()) {
            return "SELECT " + column + " FROM FINAL TABLE (MERGE INTO cosid_leader r USING (VALUES (" + role()
                    + ")) AS x (role) ON r.role = x.role WHEN MATCHED THEN UPDATE SET " + column + " = r." + column
                    + " + 1 WHEN NOT MATCHED THEN INSERT (role, fence, seq) VALUES (x.role, " + fenceAndSeq + "))";
        }
        if (mariadb()) {
            return "INSERT INTO cosid_leader (role, fence, seq) VALUES (:role, " + fenceAndSeq + ") "
                    + "ON DUPLICATE KEY UPDATE " + column + " = " + column + " + 1 RETURNING " + column;
        }
        String existing = postgres() ? "r." + column : column;
        return "INSERT INTO cosid_leader" + (postgres() ? " AS r" : "") + " (role, fence, seq) VALUES (" + role()
                + ", " + fenceAndSeq + ") ON CONFLICT (role) DO UPDATE SET " + column + " = " + existing + " + 1 "
                + "RETURNING " + column;
    }

    /**
     * Registers in one statement where the database can (PostgreSQL: a data-modifying common table expression
     * moves the sequence and writes the member's row with it); null elsewhere.
     */
    String registerInOne() {
        if (!postgres()) {
            return null;
        }
        return "WITH s AS (" + nextSequence() + ") INSERT INTO cosid_leader_member (role, member, registered_at, seq) "
                + "SELECT " + role() + ", CAST(:member AS VARCHAR(249)), CAST(:at AS BIGINT), s.seq FROM s "
                + "ON CONFLICT (role, member) DO UPDATE SET registered_at = EXCLUDED.registered_at, seq = EXCLUDED.seq";
    }

    /** Writes a member's row at {@code :seq}, the value {@link #nextSequence()} returned in the same transaction. */
    String upsertMember() {
        if (h2()) {
            return "MERGE INTO cosid_leader_member KEY (role, member) VALUES (" + role()
                    + ", CAST(:member AS VARCHAR(249)), CAST(:at AS BIGINT), CAST(:seq AS BIGINT))";
        }
        if (mariadb()) {
            return "INSERT INTO cosid_leader_member (role, member, registered_at, seq) VALUES (:role, :member, :at, "
                    + ":seq) ON DUPLICATE KEY UPDATE registered_at = VALUES(registered_at), seq = VALUES(seq)";
        }
        return "INSERT INTO cosid_leader_member (role, member, registered_at, seq) VALUES (:role, :member, :at, :seq) "
                + "ON CONFLICT (role, member) DO UPDATE SET registered_at = excluded.registered_at, "
                + "seq = excluded.seq";
    }

    /** Removes a member's row. */
    String deregister() {
        return "DELETE FROM cosid_leader_member WHERE role = :role AND member = :member";
    }

    /**
     * Writes the lease at the next offset, only while {@code :fence} is the role's fence: one conditional update,
     * which changes one row or none. The store's clock goes into {@code lease_written_at}. MariaDB assigns left
     * to right, each assignment seeing the ones before: {@code lease_seq} reads {@code seq} before it moves.
     */
    String writeLease() {
        return "UPDATE cosid_leader SET lease_member = :member, lease_fence = fence, lease_granted_at = :granted, "
                + "lease_deadline = :deadline, lease_seq = seq + 1, seq = seq + 1, lease_written_at = "
                + dialect.now() + " WHERE role = :role AND fence = :fence";
    }

    /** Clears the lease, only while {@code :fence} is the role's fence. */
    String clearLease() {
        return "UPDATE cosid_leader SET lease_member = NULL, lease_fence = NULL, lease_granted_at = NULL, "
                + "lease_deadline = NULL, lease_seq = NULL, seq = seq + 1, lease_written_at = " + dialect.now()
                + " WHERE role = :role AND fence = :fence";
    }

    /**
     * Takes the role's lock: mints (the fence grows by one) and writes a lease granted at the database's clock with
     * a deadline {@code :atmost} ms later, only while the role's lease has no deadline ahead of that clock. One
     * conditional update, which changes one row or none. MariaDB assigns left to right, each assignment seeing the
     * ones before: {@code lease_fence} and {@code lease_seq} read {@code fence} and {@code seq} before they move.
     */
    String lock() {
        String now = dialect.now();
        return "UPDATE cosid_leader SET lease_member = :member, lease_fence = fence + 1, lease_granted_at = " + now
                + ", lease_deadline = " + now + " + :atmost, lease_seq = seq + 1, seq = seq + 1, "
                + "lease_written_at = " + now + ", fence = fence + 1 WHERE role = :role AND (lease_deadline IS NULL "
                + "OR lease_deadline <= " + now + ")";
    }

    /** The lease a lock wrote, read in the lock's transaction: fence, granted at, deadline. */
    String locked() {
        return "SELECT fence, lease_granted_at, lease_deadline FROM cosid_leader WHERE role = :role";
    }

    /**
     * Releases a lock whose {@code :atleast} ms from its grant have not passed by the database's clock: the deadline
     * becomes the grant plus that, only while {@code :fence} is the role's and the lease's. Otherwise nothing
     * changes, and {@link #clearLease()} clears the lease.
     */
    String keepLock() {
        String now = dialect.now();
        return "UPDATE cosid_leader SET lease_deadline = lease_granted_at + :atleast, "
                + "lease_seq = seq + 1, seq = seq + 1, lease_written_at = " + now + " WHERE role = :role "
                + "AND fence = :fence AND lease_fence = :fence AND lease_granted_at + :atleast > " + now;
    }

    /** Clears a lock's lease, only while {@code :fence} is the role's and the lease's. */
    String clearLock() {
        return "UPDATE cosid_leader SET lease_member = NULL, lease_fence = NULL, lease_granted_at = NULL, "
                + "lease_deadline = NULL, lease_seq = NULL, seq = seq + 1, lease_written_at = " + dialect.now()
                + " WHERE role = :role AND fence = :fence AND lease_fence = :fence";
    }

    /** The role's row joined with its members' rows: one statement, so one snapshot. */
    String read() {
        return "SELECT " + READ_COLUMNS + " FROM cosid_leader r LEFT JOIN cosid_leader_member m ON m.role = r.role "
                + "WHERE r.role = :role";
    }

    /** The role's fence. */
    String fence() {
        return "SELECT fence FROM cosid_leader WHERE role = :role";
    }

    /** Every role with a row. */
    String roles() {
        return "SELECT role FROM cosid_leader";
    }
}
