package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.LeaseStores;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens JDBC stores by URL: {@code sqlite:PATH} (a leading {@code ~/} is the home directory), and
 * {@code jdbc:postgresql:}, {@code jdbc:mariadb:}/{@code jdbc:mysql:} and {@code jdbc:h2:} URLs on a
 * small HikariCP pool. The parameter {@code createSchema=false} turns off creating missing tables;
 * {@code leafTable=leaf_alloc} keeps the segment counters in Leaf's table of that name, reserved with
 * Leaf's own statements, so that Leaf servers and CosId runtimes share it ({@link LeafAllocTable}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("jdbc:postgresql://db:5432/app?user=cosid&password=secret");
 * }</pre>
 */
public final class JdbcLeaseStoreProvider implements LeaseStoreProvider {

    /** The longest a store waits for a connection before it reports the address unreachable. */
    static final long CONNECT_TIMEOUT_MILLIS = 5_000;
    /** The longest one statement may wait for the server's answer. */
    static final long SOCKET_TIMEOUT_MILLIS = 10_000;
    /** {@code jdbc:driver://user[:password]@host...}: the user info ends at the last '@' before the path. */
    private static final Pattern USER_INFO = Pattern.compile("(jdbc:[a-z0-9]+://)([^:/@]*)(?::([^/]*))?@([^@/]*(?:/.*)?)",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern CREATE_SCHEMA = Pattern.compile("([?&;])createSchema=(true|false)(&?)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern LEAF_TABLE = Pattern.compile("([?&;])leafTable=([^&;]*)(&?)", Pattern.CASE_INSENSITIVE);
    /** The option that accepts a multi-host URL whose failover or partition can repeat ids. */
    static final String ALLOW_REPEATS = "allowRepeatedIdsOnPartition";
    private static final Pattern ALLOW_REPEATS_OPTION = Pattern.compile("([?&;])" + ALLOW_REPEATS + "=([^&;]*)(&?)",
            Pattern.CASE_INSENSITIVE);
    private static final String POSTGRES_NOTICE = "a PostgreSQL store URL with several hosts now requires a primary "
            + "that commits synchronously to a standby (synchronous_standby_names); " + ALLOW_REPEATS + "=true "
            + "restores the asynchronous behaviour, which can repeat ids under a partition";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(JdbcLeaseStoreProvider.class);
    /** The change for multi-host PostgreSQL URLs is told once per process, not once per store. */
    private static final java.util.concurrent.atomic.AtomicBoolean NOTICE_GIVEN =
            new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public List<String> prefixes() {
        return List.of("sqlite:", "jdbc:sqlite:", "jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:h2:");
    }

    @Override
    public LeaseStore open(String url) {
        return connect(url, true).store();
    }

    /**
     * A store opened from a URL, and whether the URL lets it create missing tables.
     *
     * @param store the store
     * @param createSchema false when the URL says {@code createSchema=false}
     */
    record Connected(JdbcLeaseStore store, boolean createSchema) {
    }

    /**
     * Opens the store of a URL: checked, with its options, pool, dialect and synchronous-standby check.
     *
     * @param url the store URL
     * @param idTables whether to create (or check) the id tables; a leadership transport opens the store for its
     *     connections only, and SQLite gets them always, since its file guard knows a CosId file by them
     * @return the store and its schema option
     */
    static Connected connect(String url, boolean idTables) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("sqlite:") || lower.startsWith("jdbc:sqlite:")) {
            if (lower.contains("leaftable=")) {
                throw new IllegalArgumentException("leafTable works on PostgreSQL, MariaDB/MySQL and H2 store URLs, where "
                        + "Leaf keeps its table; not on sqlite:");
            }
            return new Connected(sqlite(url.substring(url.indexOf("sqlite:") + "sqlite:".length()), url), true);
        }
        boolean createSchema = true;
        String jdbcUrl = url;
        Matcher option = CREATE_SCHEMA.matcher(url);
        if (option.find()) {
            createSchema = Boolean.parseBoolean(option.group(2));
            String keep = option.group(3).isEmpty() || option.group(1).equals(";") ? "" : option.group(1);
            jdbcUrl = url.substring(0, option.start()) + keep + url.substring(option.end());
        }
        String leafTable = null;
        Matcher leafOption = LEAF_TABLE.matcher(jdbcUrl);
        if (leafOption.find()) {
            leafTable = LeafAllocTable.requireTable(leafOption.group(2));
            String keep = leafOption.group(3).isEmpty() || leafOption.group(1).equals(";") ? "" : leafOption.group(1);
            jdbcUrl = jdbcUrl.substring(0, leafOption.start()) + keep + jdbcUrl.substring(leafOption.end());
        }
        boolean allowRepeats = false;
        Matcher allow = ALLOW_REPEATS_OPTION.matcher(jdbcUrl);
        if (allow.find()) {
            String value = allow.group(2);
            if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException(ALLOW_REPEATS + " '" + value + "' in store URL '"
                        + LeaseStores.redact(url) + "' is not true or false");
            }
            allowRepeats = Boolean.parseBoolean(value);
            String keep = allow.group(3).isEmpty() || allow.group(1).equals(";") ? "" : allow.group(1);
            jdbcUrl = jdbcUrl.substring(0, allow.start()) + keep + jdbcUrl.substring(allow.end());
        }
        if (!lower.startsWith("jdbc:h2:") || lower.startsWith("jdbc:h2:tcp://") || lower.startsWith("jdbc:h2:ssl://")) {
            checkAddress(jdbcUrl, url);
        }
        int hosts = lower.startsWith("jdbc:h2:") ? 1 : hosts(jdbcUrl);
        JdbcDialect dialect;
        if (lower.startsWith("jdbc:postgresql:")) {
            dialect = JdbcDialect.POSTGRESQL;
            if (hosts > 1 && !allowRepeats && NOTICE_GIVEN.compareAndSet(false, true)) {
                LOG.info(POSTGRES_NOTICE);
            }
        } else if (lower.startsWith("jdbc:h2:")) {
            dialect = JdbcDialect.H2;
        } else {
            dialect = JdbcDialect.MARIADB;
            if (lower.startsWith("jdbc:mysql:")) {
                jdbcUrl = "jdbc:mariadb:" + jdbcUrl.substring("jdbc:mysql:".length());
            }
            if (hosts > 1 && !allowRepeats) {
                throw new IllegalArgumentException("store URL '" + LeaseStores.redact(url) + "' names " + hosts
                        + " hosts: MariaDB/MySQL replicate asynchronously, so a failover or a partition that cuts the "
                        + "primary off can repeat ids; name the one primary, or add " + ALLOW_REPEATS
                        + "=true to accept that");
            }
        }
        String description = LeaseStores.redact(url);
        HikariDataSource pool = pool(jdbcUrl, description, url);
        try {
            return new Connected(new JdbcLeaseStore(pool, dialect, description, createSchema, pool, null, leafTable,
                    dialect == JdbcDialect.POSTGRESQL && hosts > 1 && !allowRepeats, idTables), createSchema);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Returns the one line that tells an existing user of a URL what changed in this release, for a command line
     * that prints it; the store logs it at open too.
     *
     * @param url a store URL
     * @return the line, or empty when nothing changed for this URL
     */
    public static java.util.Optional<String> notice(String url) {
        if (url == null || !url.toLowerCase(Locale.ROOT).startsWith("jdbc:postgresql:") || hosts(url) < 2
                || ALLOW_REPEATS_OPTION.matcher(url).find()) {
            return java.util.Optional.empty();
        }
        try {
            checkAddress(url, url);
        } catch (IllegalArgumentException malformed) {
            return java.util.Optional.empty(); // the refusal is the one line to print
        }
        return java.util.Optional.of(POSTGRES_NOTICE);
    }

    /** Counts the hosts of {@code jdbc:driver[:mode]://host[:port][,host[:port]...]/...}; 1 for another form. */
    static int hosts(String jdbcUrl) {
        int start = jdbcUrl.indexOf("//");
        if (start < 0) {
            return 1;
        }
        int end = start + 2;
        while (end < jdbcUrl.length() && "/?;".indexOf(jdbcUrl.charAt(end)) < 0) {
            end++;
        }
        String authority = jdbcUrl.substring(start + 2, end);
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        return authority.split(",", -1).length;
    }

    /**
     * Checks the hosts and ports of a {@code jdbc:postgresql://}, {@code jdbc:mariadb://}, {@code jdbc:mysql://}
     * or {@code jdbc:h2:tcp://} URL without connecting, for a tool that reads another database (a migration
     * source) with its own connection; other URLs are left to their driver.
     *
     * @param url the URL
     * @throws IllegalArgumentException naming the malformed part, with the password masked
     */
    public static void checkAddress(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:") || lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")
                || lower.startsWith("jdbc:h2:tcp://") || lower.startsWith("jdbc:h2:ssl://")) {
            checkAddress(url, url);
        }
    }

    /**
     * Checks the hosts and ports of a PostgreSQL, MariaDB or H2 server URL before a driver sees it, so a typo
     * gets one clear line (and no driver warning on the console): {@code //host[:port][,host[:port]...]/db}.
     */
    static void checkAddress(String jdbcUrl, String url) {
        int start = jdbcUrl.indexOf("//");
        if (start < 0) {
            return; // a driver-specific form such as jdbc:postgresql:db: the driver judges it
        }
        int end = start + 2;
        while (end < jdbcUrl.length() && "/?;".indexOf(jdbcUrl.charAt(end)) < 0) {
            end++;
        }
        String authority = jdbcUrl.substring(start + 2, end);
        authority = authority.substring(authority.lastIndexOf('@') + 1); // user info goes to the pool, not the driver
        for (String host : authority.split(",", -1)) {
            int colon = host.startsWith("[") ? host.indexOf(':', Math.max(0, host.indexOf(']'))) : host.lastIndexOf(':');
            String name = colon < 0 ? host : host.substring(0, colon);
            if (name.isEmpty()) {
                throw new IllegalArgumentException("store URL '" + LeaseStores.redact(url) + "' names no host");
            }
            if (colon >= 0) {
                String port = host.substring(colon + 1);
                if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535) {
                    throw new IllegalArgumentException("port '" + port + "' of host " + name + " in store URL '"
                            + LeaseStores.redact(url) + "' is not a number from 1 to 65535");
                }
            }
        }
    }

    private static HikariDataSource pool(String jdbcUrl, String description, String url) {
        HikariConfig config = new HikariConfig();
        Matcher userInfo = USER_INFO.matcher(jdbcUrl);
        if (userInfo.matches()) {
            // the drivers read no user:password@ in a URL (MariaDB takes it for the host and echoes the password
            // in its error): hand them over as the connection's user and password instead
            jdbcUrl = userInfo.group(1) + userInfo.group(4);
            config.setUsername(decode(userInfo.group(2)));
            if (userInfo.group(3) != null) {
                config.setPassword(decode(userInfo.group(3)));
            }
        }
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName("cosid");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
        config.setValidationTimeout(CONNECT_TIMEOUT_MILLIS / 2);
        config.setInitializationFailTimeout(CONNECT_TIMEOUT_MILLIS);
        config.setAutoCommit(true);
        // a server that stops answering must fail the call, not hang the keeper: the drivers wait forever by default
        if (jdbcUrl.startsWith("jdbc:postgresql:") && !jdbcUrl.contains("socketTimeout")) {
            config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_MILLIS / 1000));
        }
        if (jdbcUrl.startsWith("jdbc:mariadb:") && !jdbcUrl.contains("socketTimeout")) {
            config.addDataSourceProperty("socketTimeout", String.valueOf(SOCKET_TIMEOUT_MILLIS));
        }
        if (jdbcUrl.startsWith("jdbc:postgresql:") && !jdbcUrl.contains("cancelSignalTimeout")) {
            // the cancel of a statement past its bound must not wait for a frozen server longer than a second
            config.addDataSourceProperty("cancelSignalTimeout", "1");
        }
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new LeaseStoreException("cannot reach " + description + " within " + CONNECT_TIMEOUT_MILLIS
                    + " ms: " + LeaseStores.mask(LeaseStores.redact(String.valueOf(cause.getMessage())), url), e);
        }
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static JdbcLeaseStore sqlite(String path, String url) {
        if (path.isBlank()) {
            throw new IllegalArgumentException("store URL '" + url + "' names no file; use sqlite:PATH");
        }
        String file = path.equals("~") || path.startsWith("~/") ? System.getProperty("user.home") + path.substring(1)
                : path;
        return JdbcLeaseStore.sqlite(Path.of(file));
    }
}
