package dev.cosid.cli;

import dev.cosid.jdbc.LeafAllocTable;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.Names;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Reads the segment counters that Leaf and CosId 2.x left behind, each as the largest id the old
 * system can have handed out for a name.
 *
 * <ul>
 *   <li>Leaf ({@code leaf_alloc}): a row per {@code biz_tag}; Leaf hands out up to {@code max_id - 1}
 *       (its segment is {@code max_id - step .. max_id - 1}), so the counter is {@code max_id - 1}.</li>
 *   <li>CosId's Redis distributor ({@code SpringRedisIdSegmentDistributor}): the string
 *       {@code cosid:{ns.name}.adder}, raised by {@code INCRBY step}; CosId hands out
 *       {@code value - step + 1 .. value}, so the counter is the value.</li>
 *   <li>CosId's JDBC distributor ({@code JdbcIdSegmentDistributor}): the table {@code cosid}, row
 *       {@code ns.name}, column {@code last_max_id}, read the same way.</li>
 * </ul>
 */
final class LegacySegments {

    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private LegacySegments() {
    }

    /**
     * One name's counter in the old system.
     *
     * @param source where it was read, for the report
     * @param name the segment name it becomes
     * @param counter the largest id the old system can have handed out
     */
    record Counter(String source, String name, long counter) {
    }

    /** Reads every row of a Leaf table; a row whose {@code max_id} is below 1 has handed out nothing yet. */
    static List<Counter> fromLeaf(String url, String table) {
        String description = LeaseStores.redact(url);
        LeafAllocTable leaf = new LeafAllocTable(new DriverDataSource(url), table, description);
        Map<String, Long> counters;
        try {
            counters = leaf.counters();
        } catch (LeaseStoreException e) {
            // the message names the source by its redacted address already; mask what the driver echoed
            throw new IllegalStateException(LeaseStores.mask(String.valueOf(e.getMessage()), url), e);
        }
        if (counters.isEmpty()) {
            throw new IllegalStateException("the Leaf table " + table + " of " + description + " has no rows: nothing "
                    + "to migrate; check --from-leaf and --leaf-table");
        }
        List<Counter> read = new ArrayList<>();
        counters.forEach((tag, counter) -> read.add(new Counter(table + " row '" + tag + "' (max_id " + (counter + 1) + ")",
                tag, Math.max(0, counter))));
        return read;
    }

    /**
     * Reads the {@code cosid:{ns.name}.adder} strings of one CosId namespace (the name is what follows
     * {@code ns.}) or, without one, of all (the name is {@code ns.name}).
     */
    static List<Counter> fromCosIdRedis(String url, String namespace) {
        RedisURI uri;
        try {
            uri = RedisURI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + LeaseStores.redact(url) + "' is not a Redis URL: " + e.getMessage());
        }
        uri.setTimeout(Duration.ofMillis(CONNECT_TIMEOUT_MILLIS));
        RedisClient client = RedisClient.create();
        try (StatefulRedisConnection<String, String> connection = client.connect(uri)) {
            RedisCommands<String, String> redis = connection.sync();
            String pattern = "cosid:{" + (namespace == null ? "" : escapeGlob(namespace) + ".") + "*}.adder";
            List<String> keys = new ArrayList<>();
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(pattern).limit(1000));
                keys.addAll(page.getKeys());
                cursor = page;
            } while (!cursor.isFinished());
            keys.sort(null);
            List<Counter> read = new ArrayList<>();
            for (String key : keys) {
                String namespaced = key.substring("cosid:{".length(), key.length() - "}.adder".length());
                String value = redis.get(key);
                read.add(new Counter("redis " + key, legacyName(namespaced, namespace),
                        number(value, "redis " + key)));
            }
            return read;
        } catch (RedisException e) {
            throw new IllegalStateException("cannot read CosId segments from " + LeaseStores.redact(url) + ": "
                    + LeaseStores.redact(String.valueOf(e.getMessage())), e);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
        }
    }

    /** Reads the rows of CosId's {@code cosid} table, of one namespace or of all. */
    static List<Counter> fromCosIdJdbc(String url, String namespace) {
        String sql = "SELECT name, last_max_id FROM cosid" + (namespace == null ? "" : " WHERE name LIKE ?")
                + " ORDER BY name";
        List<Counter> read = new ArrayList<>();
        try (Connection connection = new DriverDataSource(url).getConnection();
             PreparedStatement select = connection.prepareStatement(sql)) {
            if (namespace != null) {
                select.setString(1, namespace.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%");
            }
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String namespaced = rows.getString(1);
                    String source = "cosid row '" + namespaced + "'";
                    read.add(new Counter(source, legacyName(namespaced, namespace),
                            number(rows.getString(2), source)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the table cosid from " + LeaseStores.redact(url) + ": "
                    + LeaseStores.mask(String.valueOf(e.getMessage()), url), e);
        }
        return read;
    }

    /** CosId's {@code ns.name}: the name alone when its namespace was chosen, else all of it. */
    private static String legacyName(String namespaced, String namespace) {
        return namespace == null ? namespaced : namespaced.substring(namespace.length() + 1);
    }

    /**
     * Refuses the lot when any name read cannot name a segment ({@link Names}), naming every such name,
     * before anything is written.
     */
    static void requireNames(List<Counter> counters) {
        List<String> problems = counters.stream().map(Counter::name).distinct().map(Names::problem)
                .flatMap(java.util.Optional::stream).toList();
        if (problems.isEmpty()) {
            return;
        }
        int listed = Math.min(problems.size(), 20);
        throw new IllegalArgumentException(problems.size() + " of the " + counters.size() + " counters read have "
                + "names that cannot name a segment, so nothing was written: " + String.join(", ",
                problems.subList(0, listed)) + (listed < problems.size() ? " and " + (problems.size() - listed)
                + " more" : "") + "; " + Names.RULE + "; rename them at the source (a Leaf biz_tag together with "
                + "the key its clients ask for) and run migrate again");
    }

    private static long number(String value, String source) {
        try {
            long counter = Long.parseLong(String.valueOf(value).strip());
            if (counter < 0) {
                throw new NumberFormatException("below zero");
            }
            return counter;
        } catch (NumberFormatException e) {
            throw new IllegalStateException(source + " holds '" + value + "', not a counter of 0 or more");
        }
    }

    private static String escapeGlob(String text) {
        return text.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    }

    /** Prints what was read, one line each. */
    static void report(List<Counter> counters, PrintWriter out) {
        for (Counter counter : counters) {
            out.println("read " + counter.source() + ": segment '" + counter.name() + "' issued at most " + counter.counter());
        }
    }

    /** Connections straight from the driver, one a call, as the migration reads once. */
    private static final class DriverDataSource implements DataSource {

        private final String url;

        DriverDataSource(String url) {
            // the MariaDB driver, which also serves MySQL, takes only its own scheme
            this.url = url.regionMatches(true, 0, "jdbc:mysql:", 0, 11) ? "jdbc:mariadb:" + url.substring(11) : url;
            if (!url.regionMatches(true, 0, "jdbc:", 0, 5)) {
                throw new IllegalArgumentException("'" + LeaseStores.redact(url) + "' is not a JDBC URL; use "
                        + "jdbc:mysql://HOST/DB?user=U&password=P or jdbc:postgresql://HOST/DB?user=U&password=P");
            }
        }

        @Override
        public Connection getConnection() throws SQLException {
            DriverManager.setLoginTimeout(CONNECT_TIMEOUT_MILLIS / 1000);
            return DriverManager.getConnection(url);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            DriverManager.setLoginTimeout(CONNECT_TIMEOUT_MILLIS / 1000);
            return DriverManager.getConnection(url, username, password);
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return CONNECT_TIMEOUT_MILLIS / 1000;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
