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
 * Redis Cluster stores: {@code redis-cluster://[[user]:password@]host:port[,host:port...]} (see
 * {@link RedisClusterStores}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("redis://127.0.0.1:6379");
 * }</pre>
 */
public final class RedisLeaseStoreProvider implements LeaseStoreProvider {

    @Override
    public List<String> prefixes() {
        return List.of("redis://", "rediss://", RedisClusterStores.PREFIX);
    }

    @Override
    public LeaseStore open(String url) {
        if (url.regionMatches(true, 0, RedisClusterStores.PREFIX, 0, RedisClusterStores.PREFIX.length())) {
            return RedisClusterStores.open(url);
        }
        String base = url;
        Map<String, String> options = new LinkedHashMap<>();
        int query = url.indexOf('?');
        if (query >= 0) {
            base = url.substring(0, query);
            for (String pair : url.substring(query + 1).split("&")) {
                String[] kv = pair.split("=", 2);
                options.put(kv[0], kv.length == 2 ? kv[1] : "");
            }
        }
        int waitReplicas = number(options.remove("waitReplicas"), "waitReplicas", url, 0);
        int waitTimeout = number(options.remove("waitTimeout"), "waitTimeout", url, 100);
        if (!options.isEmpty()) {
            throw new IllegalArgumentException("unknown option " + options.keySet() + " in store URL '"
                    + LeaseStores.redact(url) + "'; known: waitReplicas, waitTimeout");
        }
        RedisURI uri;
        try {
            uri = RedisURI.create(base);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid Redis URL '" + LeaseStores.redact(url) + "': " + e.getMessage());
        }
        return new RedisLeaseStore(uri, LeaseStores.redact(url), waitReplicas, waitTimeout);
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
