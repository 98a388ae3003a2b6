package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Role;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tokens a store's transport mints, {@code (fence, 0)}, in the JDBC fence exactly as it is: the fence compares
 * producer id first, so a deposed leader's transaction is refused once its successor's token reached the table.
 */
abstract class StoreTokenFenceTests {

    private final JdbcFence fence = JdbcFence.standard();
    private Role role;

    /** The store URL the transport opens. */
    protected abstract String storeUrl();

    /** A JDBC URL of the database the fenced rows go to (the same one here). */
    protected abstract String jdbcUrl();

    @BeforeEach
    void tables() throws SQLException {
        role = Role.of("fenced-" + UUID.randomUUID().toString().substring(0, 8));
        try (Connection c = DriverManager.getConnection(jdbcUrl()); Statement statement = c.createStatement()) {
            fence.createTable(c);
            statement.execute("CREATE TABLE IF NOT EXISTS fenced_rows (role VARCHAR(64) NOT NULL, "
                    + "writer VARCHAR(16) NOT NULL, seq INTEGER NOT NULL)");
        }
    }

    private void write(FencingToken token, String writer, int seq) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl())) {
            c.setAutoCommit(false);
            try {
                fence.check(c, role, token);
                try (PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO fenced_rows (role, writer, seq) VALUES (?, ?, ?)")) {
                    insert.setString(1, role.name());
                    insert.setString(2, writer);
                    insert.setInt(3, seq);
                    insert.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl()); PreparedStatement select = c.prepareStatement(
                "SELECT writer, seq FROM fenced_rows WHERE role = ? ORDER BY seq")) {
            select.setString(1, role.name());
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    rows.add(result.getString(1) + result.getInt(2));
                }
            }
        }
        return rows;
    }

    @Test
    void aDeposedLeadersStoreTokenIsRefusedByTheFenceOnceItsSuccessorsReachedIt() throws SQLException {
        try (CoordinationTransport a = CoordinationTransports.open(storeUrl());
             CoordinationTransport b = CoordinationTransports.open(storeUrl())) {
            FencingToken deposed = a.acquireEpoch(role);
            write(deposed, "a", 1);
            FencingToken successor = b.acquireEpoch(role);
            write(successor, "b", 2);
            FencedException refused = assertThrows(FencedException.class, () -> write(deposed, "a", 3));
            assertTrue(refused.getMessage().contains("token " + deposed + " is older than token " + successor),
                    refused.getMessage());
            write(successor, "b", 4);
        }
        assertEquals(List.of("a1", "b2", "b4"), rows());
    }

    @Test
    void everyTokenMintedThroughEitherClientPassesTheFenceAndEveryEarlierOneIsRefusedAfterIt() throws SQLException {
        try (CoordinationTransport a = CoordinationTransports.open(storeUrl());
             CoordinationTransport b = CoordinationTransports.open(storeUrl())) {
            List<FencingToken> minted = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                FencingToken token = (i % 3 == 0 ? b : a).acquireEpoch(role);
                write(token, "m" + i, i);
                for (FencingToken earlier : minted) {
                    assertThrows(FencedException.class, () -> write(earlier, "late", 100), earlier + " after " + token);
                }
                minted.add(token);
            }
        }
        assertEquals(12, rows().size());
    }
}
