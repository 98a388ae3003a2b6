package dev.cosid.redis;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Opens a Redis Cluster store: {@code redis-cluster://[[user]:password@]host:port[,host:port...]}, the
 * seed nodes of one cluster.
 *
 * <p>A namespace's keys share the hash tag {@code {ns}}, so each script runs on the primary that owns
 * that one hash slot. Lettuce follows {@code MOVED} and {@code ASK} during a resharding, and refreshes
 * the cluster's topology every few seconds and at once on a redirect or a lost connection, so a
 * replica promoted after a primary failed takes over the namespace's traffic. Reads go to primaries
 * only. {@code waitReplicas} is not offered: {@code WAIT} answers for the connection that wrote, which
 * the cluster client does not expose.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("redis-cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000");
 * }</pre>
 */
final class RedisClusterStores {

    /** The URL prefix. */
    static final String PREFIX = "redis-cluster://";
    /** How often the topology is read even without a trigger. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(5);
    /** The shortest pause between two refreshes a redirect or a reconnect triggers. */
    static final Duration ADAPTIVE_REFRESH_PAUSE = Duration.ofMillis(500);

    private RedisClusterStores() {
    }

    /**
     * Opens a store on the cluster a URL names.
     *
     * @param url a {@code redis-cluster://} URL
     * @return the store, owned by the caller
     * @throws IllegalArgumentException when the URL is malformed
     * @throws LeaseStoreException when no seed node answers or the password is refused
     */
    static LeaseStore open(String url) {
        String description = LeaseStores.redact(url);
        List<RedisURI> seeds = seeds(url, description);
        ClientResources resources = RedisLeaseStore.resources();
        RedisClusterClient client = RedisClusterClient.create(resources, seeds);
        client.setOptions(ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(PERIODIC_REFRESH)
                        // every adaptive trigger (MOVED, ASK, reconnects, uncovered slot, unknown node) is on by default
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_PAUSE)
                        .refreshTriggersReconnectAttempts(1)
                        .build())
                .build());
        StatefulRedisClusterConnection<String, String> connection;
        try {
            connection = client.connect(StringCodec.UTF8);
        } catch (RedisException e) {
            client.shutdown(Duration.ZERO, RedisLeaseStore.TIMEOUT);
            resources.shutdown(0, RedisLeaseStore.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            String refusal = refusal(e);
            if (refusal != null) {
                throw new LeaseStoreException("authentication failed at " + description + ": the cluster refused the "
                        + "user name or password (" + refusal + "); check the password in the store URL", e);
            }
            throw new LeaseStoreException("cannot reach the Redis Cluster " + description + " within "
                    + RedisLeaseStore.TIMEOUT.toMillis() + " ms: " + LeaseStores.mask(RedisLeaseStore.failure(e), url), e);
        }
        connection.setTimeout(RedisLeaseStore.TIMEOUT);
        return new RedisLeaseStore(client, resources, connection, connection.async(), description);
    }

    /** Finds the server's refusal of the credentials among the causes and the per-node failures Lettuce attaches. */
    private static String refusal(Throwable failure) {
        if (failure == null) {
            return null;
        }
        String found = RedisLeaseStore.authenticationRefusal(failure);
        for (Throwable cause = failure; found == null && cause != null; cause = cause.getCause()) {
            for (Throwable suppressed : cause.getSuppressed()) {
                found = refusal(suppressed);
                if (found != null) {
                    break;
                }
            }
        }
        return found;
    }

    /** Parses the seed nodes, each with the URL's credentials and the store's timeout. */
    static List<RedisURI> seeds(String url, String description) {
        if (!url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("store URL '" + description + "' does not start with " + PREFIX);
        }
        String rest = url.substring(PREFIX.length());
        for (char forbidden : new char[] {'?', '/', '#'}) {
            int at = rest.indexOf(forbidden, rest.lastIndexOf('@') + 1);
            if (at >= 0) {
                throw new IllegalArgumentException("Redis Cluster URL '" + description + "' has '"
                        + rest.substring(at) + "' after its nodes; a cluster has no database number and takes no "
                        + "options: " + PREFIX + "[[user]:password@]host:port[,host:port...]");
            }
        }
        String user = null;
        char[] password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("Redis Cluster URL '" + description + "' has user info without "
                        + "a password; write [user]:password@");
            }
            user = colon == 0 ? null : decode(info.substring(0, colon));
            password = decode(info.substring(colon + 1)).toCharArray();
        }
        if (rest.isEmpty()) {
            throw new IllegalArgumentException("Redis Cluster URL '" + description + "' names no node: "
                    + PREFIX + "[[user]:password@]host:port[,host:port...]");
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String node : rest.split(",", -1)) {
            int colon = node.lastIndexOf(':');
            String host = colon < 0 ? node : node.substring(0, colon);
            if (colon < 0 || host.isEmpty()) {
                throw new IllegalArgumentException("node '" + node + "' in Redis Cluster URL '" + description
                        + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(node.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("port '" + node.substring(colon + 1) + "' of node '" + node
                        + "' in Redis Cluster URL '" + description + "' is not a number from 1 to 65535");
            }
            RedisURI.Builder seed = RedisURI.builder().withHost(host).withPort(port).withTimeout(RedisLeaseStore.TIMEOUT);
            if (password != null) {
                seed = user == null ? seed.withPassword(password) : seed.withAuthentication(user, password);
            }
            seeds.add(seed.build());
        }
        return seeds;
    }

    private static String decode(String part) {
        return java.net.URLDecoder.decode(part.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    }
}
