package dev.cosid.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * SQL with {@code :name} parameters, turned into a {@link PreparedStatement} with positional ones,
 * so that every dialect can use a parameter as often and in whatever order it needs.
 */
final class NamedSql {

    private final String sql;
    private final List<String> names;

    private NamedSql(String sql, List<String> names) {
        this.sql = sql;
        this.names = List.copyOf(names);
    }

    static NamedSql parse(String text) {
        StringBuilder sql = new StringBuilder(text.length());
        List<String> names = new ArrayList<>();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            }
            boolean placeholder = !quoted && c == ':' && i + 1 < text.length()
                    && Character.isLetter(text.charAt(i + 1)) && (i == 0 || text.charAt(i - 1) != ':');
            if (!placeholder) {
                sql.append(c);
                continue;
            }
            int end = i + 1;
            while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
                end++;
            }
            names.add(text.substring(i + 1, end));
            sql.append('?');
            i = end - 1;
        }
        return new NamedSql(sql.toString(), names);
    }

    PreparedStatement prepare(Connection connection, Map<String, Object> values) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < names.size(); i++) {
                Object value = values.get(names.get(i));
                if (value == null && !values.containsKey(names.get(i))) {
                    throw new IllegalArgumentException("no value for :" + names.get(i) + " in " + sql);
                }
                statement.setObject(i + 1, value);
            }
            return statement;
        } catch (SQLException | RuntimeException e) {
            statement.close();
            throw e;
        }
    }

    @Override
    public String toString() {
        return sql;
    }
}
