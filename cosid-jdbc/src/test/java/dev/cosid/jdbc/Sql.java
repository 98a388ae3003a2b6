package dev.cosid.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Runs SQL on a database behind a store's back, as an operator (or a lost disk) would. */
final class Sql {

    private Sql() {
    }

    /**
     * Runs one statement with positional parameters.
     *
     * @param jdbcUrl the database, with credentials
     * @param sql the statement
     * @param parameters its parameters
     * @return the update count
     * @throws SQLException when it fails
     */
    static int run(String jdbcUrl, String sql, Object... parameters) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl);
             PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            return statement.executeUpdate();
        }
    }

    static void deleteNamespace(String jdbcUrl, String namespace) throws SQLException {
        run(jdbcUrl, "DELETE FROM cosid_namespace WHERE namespace = ?", namespace);
    }

    static void deleteSlot(String jdbcUrl, String namespace, int slot) throws SQLException {
        run(jdbcUrl, "DELETE FROM cosid_slot WHERE namespace = ? AND slot = ?", namespace, slot);
    }
}
