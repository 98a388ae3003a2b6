package dev.cosid.coordination.kafka.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JDBC fence against a real database: a deposed leader's transaction never commits after its
 * successor's first, whichever of the two reaches the fence row first. Each database runs it unchanged.
 */
abstract class JdbcFenceContract {

    private static final FencingToken OLD = FencingToken.of(7, (short) 3);
    private static final FencingToken NEW = FencingToken.of(7, (short) 4);

    protected final JdbcFence fence = JdbcFence.standard();
    protected Role role;

    /** Returns a JDBC URL of the database under test. */
    protected abstract String url();

    /** Whether a second writer waits on the first's row lock (false for SQLite, which has one writer at a time). */
    protected boolean rowLocks() {
        return true;
    }

    protected Connection connect() throws SQLException {
        return DriverManager.getConnection(url());
    }

    @BeforeEach
    void tables() throws SQLException {
        role = Role.of("role-" + UUID.randomUUID().toString().substring(0, 8));
        try (Connection c = connect(); Statement statement = c.createStatement()) {
            fence.createTable(c);
            fence.createTable(c); // twice: it exists
            statement.execute("CREATE TABLE IF NOT EXISTS fenced_rows (role VARCHAR(64) NOT NULL, "
                    + "writer VARCHAR(16) NOT NULL, seq INTEGER NOT NULL)");
        }
    }

    /** One leader's transaction: the fence, then its row. */
    private void write(Connection c, FencingToken token, String writer, int seq) throws SQLException {
        fence.check(c, role, token);
        insertRow(c, writer, seq);
    }

    private void insertRow(Connection c, String writer, int seq) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement(
                "INSERT INTO fenced_rows (role, writer, seq) VALUES (?, ?, ?)")) {
            insert.setString(1, role.name());
            insert.setString(2, writer);
            insert.setInt(3, seq);
            insert.executeUpdate();
        }
    }

    private List<String> rows() throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement select = c.prepareStatement(
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

    private Connection transaction() throws SQLException {
        Connection c = connect();
        c.setAutoCommit(false);
        return c;
    }

    @Test
    void aTokenOlderThanOneCommittedIsRefusedAndItsRowNeverLands() throws SQLException {
        try (Connection a = transaction(); Connection b = transaction()) {
            write(a, OLD, "old", 1);
            a.commit();
            write(b, NEW, "new", 2);
            b.commit();
            FencedException refused = assertThrows(FencedException.class, () -> fence.check(a, role, OLD));
            assertEquals("role '" + role + "': token 7:3 is older than token 7:4 that the fence table "
                    + "cosid_leader_fence has seen; roll back, a newer leader writes", refused.getMessage());
            a.rollback();
            write(b, NEW, "new", 3); // the same token again passes
            b.commit();
        }
        assertEquals(List.of("old1", "new2", "new3"), rows());
        try (Connection c = connect()) {
            assertEquals(NEW, fence.newest(c, role));
        }
    }

    @Test
    void whenTheDeposedLeaderHoldsTheRowTheSuccessorWaitsUntilItsTransactionEnds() throws Exception {
        if (!rowLocks()) {
            return;
        }
        try (Connection first = transaction(); Connection old = transaction(); Connection next = transaction()) {
            write(first, OLD, "old", 1);
            first.commit();
            write(old, OLD, "old", 2); // the deposed leader is inside the fence, not yet committed
            CompletableFuture<Void> successor = CompletableFuture.runAsync(() -> {
                try {
                    write(next, NEW, "new", 3);
                    next.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(TimeoutException.class, () -> successor.get(500, TimeUnit.MILLISECONDS),
                    "the successor waits on the row lock");
            old.commit();
            successor.get(30, TimeUnit.SECONDS);
        }
        assertEquals(List.of("old1", "old2", "new3"), rows(), "the deposed leader's row landed before the successor's");
    }

    @Test
    void whenTheSuccessorHoldsTheRowTheDeposedLeaderIsRefusedOnceItCommits() throws Exception {
        if (!rowLocks()) {
            return;
        }
        try (Connection first = transaction(); Connection next = transaction(); Connection old = transaction()) {
            write(first, OLD, "old", 1);
            first.commit();
            write(next, NEW, "new", 2);
            CompletableFuture<Void> deposed = CompletableFuture.runAsync(() -> {
                try {
                    write(old, OLD, "old", 3);
                    old.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThrows(TimeoutException.class, () -> deposed.get(500, TimeUnit.MILLISECONDS));
            next.commit();
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> deposed.get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof FencedException, String.valueOf(refused.getCause()));
            old.rollback();
        }
        assertEquals(List.of("old1", "new2"), rows());
    }

    @Test
    void twoLeadersCheckingARoleWithoutARowInsertItOnceAndTheOlderIsRefused() throws Exception {
        try (Connection next = transaction(); Connection old = transaction()) {
            write(next, NEW, "new", 1);
            CompletableFuture<Void> deposed = CompletableFuture.runAsync(() -> {
                try {
                    write(old, OLD, "old", 2);
                    old.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            if (rowLocks()) {
                assertThrows(TimeoutException.class, () -> deposed.get(500, TimeUnit.MILLISECONDS));
            }
            next.commit();
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> deposed.get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof FencedException, String.valueOf(refused.getCause()));
            old.rollback();
        }
        assertEquals(List.of("new1"), rows());
    }

    @Test
    void theFenceRefusesToRunOutsideATransaction() throws SQLException {
        try (Connection c = connect()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fence.check(c, role, NEW));
            assertTrue(e.getMessage().contains("autocommit is on"), e.getMessage());
            assertEquals(FencingToken.NO_EPOCH, fence.newest(c, role), "nothing was written");
        }
        assertFalse(rows().iterator().hasNext());
    }

    @Test
    void aTableNameIsCheckedBeforeItReachesSql() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> JdbcFence.onTable("x; DROP TABLE y"));
        assertEquals("fence table 'x; DROP TABLE y' is not a name of letters, digits and underscores "
                + "(optionally schema.table)", e.getMessage());
        assertEquals("app.leader_fence", JdbcFence.onTable("app.leader_fence").table());
    }
}
