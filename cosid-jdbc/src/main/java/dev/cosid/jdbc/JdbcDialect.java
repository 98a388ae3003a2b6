package dev.cosid.jdbc;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;

/**
 * The SQL one database needs for the lease store. Each lease operation is one statement whose
 * condition and time (the database's own clock) run inside the database, and which returns the
 * slot row after the statement in the order of {@link #ROW_COLUMNS}, followed by the database's now.
 *
 * <p>Parameters are named: {@code :ns}, {@code :slot}, {@code :key}, {@code :inc}, {@code :ttl},
 * {@code :tol}, {@code :guard} (1 with the cold-start guard, else 0), {@code :takeover} (1 with the
 * takeover guard, else 0), {@code :seen} (the fence an acquire expects, 0 for no row), {@code :fence}, {@code :last},
 * {@code :limit}, and for layouts {@code :name}, {@code :epoch}, {@code :unit}, {@code :tbits}, {@code :sbits},
 * {@code :qbits}. A renewal holds only while the namespace record exists, so a namespace that vanished
 * ends its leases. A statement whose condition does not hold returns no row, or the unchanged row;
 * the store tells the two apart by the row's owner and fence.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * JdbcDialect.named("postgresql").schema().forEach(System.out::println);
 * }</pre>
 */
public abstract class JdbcDialect {

    /** The slot columns every statement returns, in this order, followed by the store's now. */
    public static final String ROW_COLUMNS = "slot, owner_key, owner_incarnation, last_owner_key, fence, expires_at, "
            + "floor_ms, ceiling_ms, next_floor";

    /** SQLite 3.35 or later: the embedded default. */
    public static final JdbcDialect SQLITE = new SqliteDialect();
    /** PostgreSQL 9.5 or later. */
    public static final JdbcDialect POSTGRESQL = new PostgresDialect();
    /** MariaDB 10.5 or later (for {@code RETURNING}). */
    public static final JdbcDialect MARIADB = new MariaDbDialect();
    /** H2 2.x. */
    public static final JdbcDialect H2 = new H2Dialect();

    private static final List<JdbcDialect> ALL = List.of(SQLITE, POSTGRESQL, MARIADB, H2);

    JdbcDialect() {
    }

    /**
     * Returns the dialect of a name, as {@code ./cosid schema --dialect} takes it.
     *
     * @param name sqlite, postgresql, mariadb (or mysql) or h2
     * @return the dialect
     */
    public static JdbcDialect named(String name) {
        String key = name.trim().toLowerCase(Locale.ROOT);
        if (key.equals("mysql") || key.equals("postgres")) {
            key = key.equals("mysql") ? "mariadb" : "postgresql";
        }
        for (JdbcDialect dialect : ALL) {
            if (dialect.name().equals(key)) {
                return dialect;
            }
        }
        throw new IllegalArgumentException("unknown dialect '" + name + "'; known: sqlite, postgresql, mariadb, h2");
    }

    /** Returns the dialect's name. */
    public abstract String name();

    /** Returns the DDL statements that create the schema; each is safe to run again. */
    public List<String> schema() {
        return List.of(namespaceTable(), slotTable(), layoutTable(), segmentTable());
    }

    /** The table of namespace records. */
    abstract String namespaceTable();

    /** The table of slot records. */
    abstract String slotTable();

    /** The table of id-space layouts, added in CosId 5.0; a database made before it gets it at the next open. */
    abstract String layoutTable();

    /** Inserts a layout record unless the id space has one: {@code :ns, :name, :epoch, :unit, :tbits, :sbits, :qbits}. */
    abstract String insertLayout();

    /** Selects the layout of {@code :ns, :name}. */
    String selectLayout() {
        return "SELECT epoch_ms, unit_ms, timestamp_bits, slot_bits, sequence_bits FROM cosid_layout "
                + "WHERE namespace = :ns AND name = :name";
    }

    /** A condition that holds while the namespace record of {@code :ns} exists: renewals need it. */
    static String namespaceExists() {
        return "EXISTS (SELECT 1 FROM cosid_namespace n WHERE n.namespace = :ns)";
    }

    /**
     * Reports whether an error means the store's tables or file are gone or damaged (dropped tables, a
     * truncated or overwritten SQLite file), rather than a failure to reach the database.
     *
     * @param e the error of a lease operation
     * @return true when the data is gone
     */
    abstract boolean dataGone(SQLException e);

    /** Returns the schema as one script, each statement ending with a semicolon. */
    public String schemaScript() {
        return String.join(";\n", schema()) + ";\n";
    }

    /** The database's clock in milliseconds since the Unix epoch, constant within one statement. */
    abstract String now();

    /** Inserts a namespace record unless one exists: {@code :ns, :limit, :tol}. */
    abstract String insertNamespace();

    /** Selects slot_limit and tolerance_ms of {@code :ns}. */
    String selectNamespace() {
        return "SELECT slot_limit, tolerance_ms FROM cosid_namespace WHERE namespace = :ns";
    }

    /** Selects every slot row of {@code :ns} with now; one row of nulls and now when there is none. */
    String selectSlots() {
        StringBuilder columns = new StringBuilder();
        for (String column : ROW_COLUMNS.split(", ")) {
            columns.append("s.").append(column).append(", ");
        }
        return "SELECT " + columns + "t.now FROM (SELECT " + now() + " AS now) t "
                + "LEFT JOIN cosid_slot s ON s.namespace = :ns ORDER BY s.slot";
    }

    /** A statement that fails when the schema is missing. */
    String probeSchema() {
        return "SELECT COUNT(*) FROM cosid_slot WHERE 1 = 0";
    }

    /** A statement that fails when the layout table, added in CosId 5.0, is missing. */
    String probeLayouts() {
        return "SELECT COUNT(*) FROM cosid_layout WHERE 1 = 0";
    }

    /**
     * Reports whether statements return an eleventh column, 1 when their condition held and 0 when
     * they returned the row unchanged; otherwise a returned row means the condition held.
     */
    boolean reportsApplied() {
        return false;
    }

    /** Selects the owner key and fence of {@code :slot} of {@code :ns}: what an acquire expects to change. */
    String selectSlot() {
        return "SELECT owner_key, fence FROM cosid_slot WHERE namespace = :ns AND slot = :slot";
    }

    /**
     * Acquires {@code :slot} of {@code :ns} for {@code :key/:inc} if it is free or expired and its fence is
     * still {@code :seen} (no row for 0), so the row changed is the one the store read; with
     * {@code :takeover} a row that still names an (expired) owner gets the floor
     * {@code max(next_floor, now + ttl + tol)}.
     */
    abstract String acquire();

    /** Renews the lease of {@code :key/:inc} with {@code :fence}. */
    abstract String renew();

    /** Releases the lease of {@code :key/:inc} with {@code :fence}, handing on {@code :last}. */
    abstract String release();

    /** The table of segment counters (name to the last id reserved), added with segment ids; made at the next open. */
    abstract String segmentTable();

    /**
     * Moves the counter of {@code :ns, :name} by {@code :size} (from 0 when it has none) in one statement
     * and returns {@code last_id} after it; no row when the namespace record of {@code :ns} is missing, or
     * (where the database would not refuse it itself) when the counter would pass the largest id.
     */
    abstract String reserveSegment();

    /** Raises the counter of {@code :ns, :name} to at least {@code :size} and returns it; no row without the namespace. */
    abstract String raiseSegment();

    /** Sets the counter of {@code :ns, :name} to {@code :last} only while it still is {@code :seen} and the namespace exists. */
    String returnSegmentTail() {
        return "UPDATE cosid_segment SET last_id = :last WHERE namespace = :ns AND name = :name AND last_id = :seen AND "
                + namespaceExists();
    }

    /** Selects the counter of {@code :ns, :name}. */
    String selectSegment() {
        return "SELECT last_id FROM cosid_segment WHERE namespace = :ns AND name = :name";
    }

    /** Selects every counter of {@code :ns}: name and last_id. */
    String selectSegments() {
        return "SELECT name, last_id FROM cosid_segment WHERE namespace = :ns";
    }

    /** A statement that fails when the segment table is missing. */
    String probeSegments() {
        return "SELECT COUNT(*) FROM cosid_segment WHERE 1 = 0";
    }

    /**
     * Reports whether an error of a segment statement means that it changed nothing and may run again: a
     * deadlock or serialization failure that rolled it back, or a concurrent first insert of the same
     * counter that won the race.
     *
     * @param e the error
     * @return true when the statement may simply run again
     */
    static boolean rolledBack(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.equals("40001") || state.equals("40P01") || state.startsWith("23"));
    }

    @Override
    public String toString() {
        return name();
    }
}
