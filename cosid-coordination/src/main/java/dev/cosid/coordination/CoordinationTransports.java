package dev.cosid.coordination;

import dev.cosid.lease.LeaseStores;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Opens the leadership transport of a store URL, the same URL the ids use: {@code memory:} (a new
 * {@link InMemoryTransport}, for tests), and whatever the store modules on the class path register:
 * {@code cosid-jdbc} opens {@code sqlite:PATH} and {@code jdbc:postgresql:}, {@code jdbc:mariadb:},
 * {@code jdbc:mysql:} and {@code jdbc:h2:} URLs; {@code cosid-redis} opens {@code redis://}, {@code rediss://},
 * {@code redis-sentinel://} and {@code redis-cluster://}; {@code cosid-zookeeper} opens {@code zookeeper://};
 * {@code cosid-etcd} opens {@code etcd://}.
 *
 * <p>A store's transport mints each epoch with one atomic conditional update of the role's record (the fence
 * grows by one, the token is {@code (fence, 0)}), accepts a lease write or clear only with the current token,
 * and follows the store's own rules: the URL's options, the bounded calls, the confirmed writes of replicated
 * setups. {@code docs/leadership.md} ("Leadership on the stores") says what each store gives under a
 * partition. The URL is checked as the id stores check it, and a message never shows its password.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (CoordinationTransport transport = CoordinationTransports.open("jdbc:postgresql://db:5432/app?user=cosid");
 *      Elector elector = Elector.builder(transport, Role.of("billing"), MemberId.of("node-1"))
 *              .work(leadership -> runBilling(leadership.token()))
 *              .start()) {
 *     awaitShutdown();
 * }
 * }</pre>
 */
public final class CoordinationTransports {

    /** The module that opens each URL prefix CosId ships a transport for. */
    private static final Map<String, String> MODULES = Map.ofEntries(
            Map.entry("sqlite:", "cosid-jdbc"), Map.entry("jdbc:sqlite:", "cosid-jdbc"),
            Map.entry("jdbc:postgresql:", "cosid-jdbc"), Map.entry("jdbc:mariadb:", "cosid-jdbc"),
            Map.entry("jdbc:mysql:", "cosid-jdbc"), Map.entry("jdbc:h2:", "cosid-jdbc"),
            Map.entry("redis://", "cosid-redis"), Map.entry("rediss://", "cosid-redis"),
            Map.entry("redis-sentinel://", "cosid-redis"), Map.entry("redis-cluster://", "cosid-redis"),
            Map.entry("zookeeper://", "cosid-zookeeper"), Map.entry("etcd://", "cosid-etcd"));

    private CoordinationTransports() {
    }

    /**
     * Opens the transport a store URL names.
     *
     * @param url the store URL
     * @return the transport, owned by the caller
     * @throws IllegalArgumentException when the URL is empty or malformed, or no module on the class path opens
     *     it: the message names the module to add, or the URL's scheme and the prefixes that are supported
     * @throws CoordinationException when the store cannot be reached
     */
    public static CoordinationTransport open(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("store URL is empty");
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.equals("memory:")) {
            return new InMemoryTransport();
        }
        List<String> known = new ArrayList<>(List.of("memory:"));
        for (CoordinationTransportProvider provider : ServiceLoader.load(CoordinationTransportProvider.class)) {
            for (String prefix : provider.prefixes()) {
                if (lower.startsWith(prefix)) {
                    return provider.open(url);
                }
                known.add(prefix);
            }
        }
        String module = MODULES.entrySet().stream().filter(entry -> lower.startsWith(entry.getKey()))
                .max(Comparator.comparingInt(entry -> entry.getKey().length())).map(Map.Entry::getValue).orElse(null);
        if (module != null) {
            throw new IllegalArgumentException("store URL '" + LeaseStores.redact(url) + "' needs the module dev.cosid:"
                    + module + ", which is not on the class path: add it beside dev.cosid:cosid-coordination");
        }
        if (lower.startsWith("kafka:") || lower.startsWith("kafka://")) {
            throw new IllegalArgumentException("store URL '" + LeaseStores.redact(url) + "': the Kafka transport "
                    + "has no store URL; create it with KafkaCoordinationTransport.create(bootstrapServers, "
                    + "replicationFactor) from dev.cosid:cosid-coordination-kafka");
        }
        throw new IllegalArgumentException("unknown store URL '" + LeaseStores.redact(url) + "'; supported: "
                + String.join(", ", known));
    }
}
