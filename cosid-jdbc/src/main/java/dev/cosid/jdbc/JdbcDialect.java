package dev.cosid.jdbc;

import java.util.List;

/**
 * The SQL one database needs for the lease store; each lease operation is one statement whose
 * {@code WHERE} is the condition and whose time is the database's own clock.
 *
 * <p>Statements return, where the database can, the changed row in the column order of
 * {@link #ROW_COLUMNS} followed by the database's now.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * JdbcDialect dialect = JdbcDialect.SQLITE;
 * dialect.schema().forEach(System.out::println);
 * }</pre>
 */
public interface JdbcDialect {

    /** The slot columns every query returns, in this order, followed by the store's now. */
    String ROW_COLUMNS = "slot, owner_key, owner_incarnation, last_owner_key, fence, expires_at, floor_ms, "
            + "ceiling_ms, next_floor";

    /** SQLite: the embedded default. */
    JdbcDialect SQLITE = new SqliteDialect();

    /** Returns the dialect's name, as {@code ./cosid schema --dialect} takes it. */
    String name();

    /** Returns the DDL statements that create the schema; each is safe to run again. */
    List<String> schema();

    /** Inserts a namespace record unless one exists: namespace, limit, tolerance. */
    String insertNamespace();

    /** Selects the namespace record: slot_limit, tolerance_ms; parameter: namespace. */
    String selectNamespace();

    /**
     * Selects every slot of a namespace with the store's now; one row with null slot columns when the
     * namespace has none. Parameter: namespace.
     */
    String selectSlots();

    /** Acquires: namespace, slot, owner key, incarnation, ttl, tolerance; returns the row. */
    String acquire();

    /** Renews: ttl, tolerance, namespace, slot, owner key, incarnation, fence; returns the row. */
    String renew();

    /** Releases: last issued, namespace, slot, owner key, incarnation, fence; update count 1 on success. */
    String release();
}
