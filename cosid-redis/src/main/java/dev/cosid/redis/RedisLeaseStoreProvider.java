package dev.cosid.redis;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.LeaseStores;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Opens Redis stores: {@code redis://[user:password@]host:port[/db][?waitReplicas=N&waitTimeout=MS]}, and
 * behind Redis Sentinel, in Lettuce's syntax,
 * {@code redis-sentinel://[:password@]host:port[,host:port...][/db][?options]#primaryName}: the store
 * asks the sentinels for the primary of that name and, after a failover, reconnects to the new one; and
 * every write waits for {@code waitReplicas} replicas (default 1 behind Sentinel, 0 otherwise) for at most
 * {@code waitTimeout} ms (default 1000). Behind Sentinel {@code waitReplicas=0} is refused unless
 * {@code allowRepeatedIdsOnPartition=true} says the caller accepts that a primary cut off by a partition keeps
 * renewing while its replica is promoted, so both sides issue the same ids; and
 * Redis Cluster stores: {@code redis-cluster://[[user]:password@]host:port[,host:port...]} (see
 * {@link RedisClusterStores}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("redis://127.0.0.1:6379");
 * LeaseStore followed = LeaseStores.open("redis-sentinel://10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379#ids");
 * }</pre>
 */
public final class RedisLeaseStoreProvider implements LeaseStoreProvider {

    /** The option that allows an asynchronous Sentinel setup, which can repeat ids when a partition cuts the primary off. */
    static final String ALLOW_REPEATS = "allowRepeatedIdsOnPartition";
    /** How long a write waits for its replicas by default: far below a renewal interval of ttl/3. */
    static final int DEFAULT_WAIT_TIMEOUT_MILLIS = 1_000;
    private static final String SENTINEL = "redis-sentinel://";
    private static final String SENTINEL_NOTICE = "redis-sentinel now waits for 1 replica per write by default; a "
            + "failover needs a second replica to stay writable; " + ALLOW_REPEATS + "=true&waitReplicas=0 restores "
            + "the asynchronous behaviour, which can repeat ids under a partition";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RedisLeaseStoreProvider.class);
    /** The change of the Sentinel default is told once per process, not once per store. */
    private static final java.util.concurrent.atomic.AtomicBoolean NOTICE_GIVEN =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** A host, a bracketed IPv6 address, or either with a port. */
    private static final java.util.regex.Pattern HOST_PORT = java.util.regex.Pattern.compile(
            "(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.\\-]+)(?::(\\d{1,5}))?");

    @Override
    public List<String> prefixes() {
        return List.of("redis://", "rediss://", SENTINEL, RedisClusterStores.PREFIX);
    }

    @Override
    public LeaseStore open(String url) {
        if (url.regionMatches(true, 0, RedisClusterStores.PREFIX, 0, RedisClusterStores.PREFIX.length())) {
            return RedisClusterStores.open(url);
        }
        Parsed parsed = parse(url);
        if (parsed.sentinel() && !parsed.waitGiven() && NOTICE_GIVEN.compareAndSet(false, true)) {
            LOG.info(SENTINEL_NOTICE);
        }
        return new RedisLeaseStore(parsed.uri(), LeaseStores.redact(url), parsed.waitReplicas(), parsed.waitTimeout());
    }

    /** A {@code redis://}, {@code rediss://} or {@code redis-sentinel://} URL, checked. */
    private record Parsed(RedisURI uri, boolean sentinel, boolean waitGiven, int waitReplicas, int waitTimeout) {
    }

    /** Checks and parses a URL without connecting; every malformed part is an {@link IllegalArgumentException}. */
    private static Parsed parse(String url) {
        boolean sentinel = url.regionMatches(true, 0, SENTINEL, 0, SENTINEL.length());
        String primaryName = null;
        String rest = url;
        if (sentinel) {
            // the fragment comes last in Lettuce's syntax (after any options); a '#' in a password is percent-encoded
            int hash = url.indexOf('#', Math.max(url.lastIndexOf('@'), 0));
            if (hash < 0 || hash == url.length() - 1) {
                throw new IllegalArgumentException("Redis Sentinel URL '" + LeaseStores.redact(url) + "' names no "
                        + "primary: end it with #NAME, the name the sentinels monitor (sentinel monitor NAME ...)");
            }
            primaryName = url.substring(hash + 1);
            rest = url.substring(0, hash);
        }
        String base = rest;
        Map<String, String> options = new LinkedHashMap<>();
        int query = rest.indexOf('?');
        if (query >= 0) {
            base = rest.substring(0, query);
            for (String pair : rest.substring(query + 1).split("&")) {
                String[] kv = pair.split("=", 2);
                options.put(kv[0], kv.length == 2 ? kv[1] : "");
            }
        }
        String waitOption = options.remove("waitReplicas");
        boolean allowRepeats = flag(options.remove(ALLOW_REPEATS), url);
        int waitReplicas = number(waitOption, "waitReplicas", url, sentinel ? 1 : 0);
        int waitTimeout = number(options.remove("waitTimeout"), "waitTimeout", url, DEFAULT_WAIT_TIMEOUT_MILLIS);
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("unknown option " + options.keySet() + " in store URL '"
                    + LeaseStores.redact(url) + "'; known: waitReplicas, waitTimeout, " + ALLOW_REPEATS);
        }
        if (sentinel && waitReplicas == 0 && !allowRepeats) {
            throw new IllegalArgumentException("waitReplicas=0 in Redis Sentinel URL '" + LeaseStores.redact(url)
                    + "' lets a partitioned primary keep renewing while a replica is promoted, which repeats ids; "
                    + "remove it (the default waits for 1 replica) or add " + ALLOW_REPEATS + "=true to accept that");
        }
        if (sentinel) {
            checkSentinels(base, url);
            base = base + "#" + primaryName;
        } else {
            checkServer(base, url);
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(base);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid Redis URL '" + LeaseStores.redact(url) + "': " + e.getMessage());
        }
        return new Parsed(uri, sentinel, waitOption != null, waitReplicas, waitTimeout);
    }

    /**
     * Returns the one line that tells an existing user of a URL what changed in this release, for a command line
     * that prints it; the store logs it at open too.
     *
     * @param url a store URL
     * @return the line, or empty when nothing changed for this URL
     */
    public static java.util.Optional<String> notice(String url) {
        if (url == null || !url.regionMatches(true, 0, SENTINEL, 0, SENTINEL.length())) {
            return java.util.Optional.empty();
        }
        Parsed parsed;
        try {
            parsed = parse(url);
        } catch (IllegalArgumentException malformed) {
            return java.util.Optional.empty(); // the refusal is the one line to print
        }
        return parsed.waitGiven() ? java.util.Optional.empty() : java.util.Optional.of(SENTINEL_NOTICE);
    }

    /**
     * Checks the host, port and database number of a {@code redis://} or {@code rediss://} URL without
     * connecting, for a tool that reads another Redis (a migration source) with its own client.
     *
     * @param url the URL
     * @throws IllegalArgumentException naming the malformed part, with the password masked
     */
    public static void checkAddress(String url) {
        String base = url;
        for (char end : new char[] {'?', '#'}) {
            int at = base.indexOf(end, Math.max(base.lastIndexOf('@'), 0));
            base = at < 0 ? base : base.substring(0, at);
        }
        checkServer(base, url);
    }

    /**
     * Checks {@code redis[s]://[user:password@]host[:port][/db]} so a typo gets one clear line instead of a
     * connection attempt: Lettuce takes {@code 127.0.0.1:notaport} for a host name and an empty port for 6379.
     */
    private static void checkServer(String base, String url) {
        String authority = base.substring(base.indexOf("//") + 2);
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        int slash = authority.indexOf('/');
        if (slash >= 0) {
            String db = authority.substring(slash + 1);
            if (!db.isEmpty() && !db.matches("\\d{1,5}")) {
                throw new IllegalArgumentException("database '" + db + "' in Redis URL '" + LeaseStores.redact(url)
                        + "' is not a number");
            }
            authority = authority.substring(0, slash);
        }
        int colon = authority.startsWith("[") ? authority.indexOf(':', Math.max(authority.indexOf(']'), 0))
                : authority.lastIndexOf(':');
        String host = colon < 0 ? authority : authority.substring(0, colon);
        if (host.isEmpty()) {
            throw new IllegalArgumentException("Redis URL '" + LeaseStores.redact(url) + "' names no host: use "
                    + "redis://HOST:PORT[/DB]");
        }
        if (!HOST_PORT.matcher(host).matches()) {
            throw new IllegalArgumentException("host '" + host + "' in Redis URL '" + LeaseStores.redact(url)
                    + "' is not a host name or address");
        }
        if (colon >= 0) {
            String port = authority.substring(colon + 1);
            if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535) {
                throw new IllegalArgumentException("port '" + port + "' of host " + host + " in Redis URL '"
                        + LeaseStores.redact(url) + "' is not a number from 1 to 65535");
            }
        }
    }

    /** Checks {@code redis-sentinel://[:password@]host:port[,host:port...][/db]} so a typo gets one clear line. */
    private static void checkSentinels(String base, String url) {
        String authority = base.substring(SENTINEL.length());
        int slash = authority.indexOf('/', Math.max(authority.lastIndexOf('@'), 0));
        if (slash >= 0) {
            String db = authority.substring(slash + 1);
            if (!db.isEmpty() && !db.matches("\\d{1,5}")) {
                throw new IllegalArgumentException("database '" + db + "' in Redis Sentinel URL '"
                        + LeaseStores.redact(url) + "' is not a number");
            }
            authority = authority.substring(0, slash);
        }
        authority = authority.substring(authority.lastIndexOf('@') + 1);
        if (authority.isEmpty()) {
            throw new IllegalArgumentException("Redis Sentinel URL '" + LeaseStores.redact(url) + "' names no "
                    + "sentinel: list them as host:port,host:port");
        }
        for (String sentinel : authority.split(",", -1)) {
            java.util.regex.Matcher matcher = HOST_PORT.matcher(sentinel);
            if (!matcher.matches()) {
                throw new IllegalArgumentException("sentinel '" + sentinel + "' in Redis Sentinel URL '"
                        + LeaseStores.redact(url) + "' is not host:port");
            }
            String port = matcher.group(2);
            if (port != null && (Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535)) {
                throw new IllegalArgumentException("port '" + port + "' of sentinel " + matcher.group(1)
                        + " in Redis Sentinel URL '" + LeaseStores.redact(url) + "' is not a number from 1 to 65535");
            }
        }
    }

    private static boolean flag(String value, String url) {
        if (value == null || value.equalsIgnoreCase("false")) {
            return false;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        throw new IllegalArgumentException(ALLOW_REPEATS + " '" + value + "' in store URL '" + LeaseStores.redact(url)
                + "' is not true or false");
    }

    private static int number(String value, String name, String url, int fallback) {
        if (value == null) {
            return fallback;
        }
        try {
            int parsed = Integer.parseInt(value);
            if (parsed < 0) {
                throw new NumberFormatException();
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " '" + value + "' in store URL '" + LeaseStores.redact(url)
                    + "' is not a non-negative number");
        }
    }
}
