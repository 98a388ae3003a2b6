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

    private static final String SENTINEL = "redis-sentinel://";
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
        int waitReplicas = number(options.remove("waitReplicas"), "waitReplicas", url, 0);
        int waitTimeout = number(options.remove("waitTimeout"), "waitTimeout", url, 100);
        // accepted so that URLs naming the asynchronous mode as unsafe open today; the default it opts out of
        // (confirmed writes behind Sentinel) is decided apart from this parsing
        String allowRepeats = options.remove("allowRepeatedIdsOnPartition");
        if (allowRepeats != null && !allowRepeats.equals("true") && !allowRepeats.equals("false")) {
            throw new IllegalArgumentException("allowRepeatedIdsOnPartition '" + allowRepeats + "' in store URL '"
                    + LeaseStores.redact(url) + "' is neither true nor false");
        }
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("unknown option " + options.keySet() + " in store URL '"
                    + LeaseStores.redact(url) + "'; known: waitReplicas, waitTimeout, "
                    + "allowRepeatedIdsOnPartition");
        }
        if (sentinel) {
            checkSentinels(base, url);
            base = base + "#" + primaryName;
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(base);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid Redis URL '" + LeaseStores.redact(url) + "': " + e.getMessage());
        }
        return new RedisLeaseStore(uri, LeaseStores.redact(url), waitReplicas, waitTimeout);
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
