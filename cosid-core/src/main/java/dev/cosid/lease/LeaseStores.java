package dev.cosid.lease;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * Opens a lease store from its URL: {@code memory:}, {@code sqlite:PATH}, and whatever the store
 * modules on the class path register.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (LeaseStore store = LeaseStores.open("sqlite:/var/lib/cosid/cosid.db")) {
 *     ...
 * }
 * }</pre>
 */
public final class LeaseStores {

    private LeaseStores() {
    }

    /**
     * Opens the store a URL names.
     *
     * @param url the store URL
     * @return the store, owned by the caller
     * @throws IllegalArgumentException when no store on the class path supports the URL
     */
    public static LeaseStore open(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("store URL is empty");
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.equals("memory:")) {
            return new InMemoryLeaseStore();
        }
        List<String> known = new ArrayList<>(List.of("memory:"));
        for (LeaseStoreProvider provider : ServiceLoader.load(LeaseStoreProvider.class)) {
            for (String prefix : provider.prefixes()) {
                if (lower.startsWith(prefix)) {
                    return provider.open(url);
                }
                known.add(prefix);
            }
        }
        throw new IllegalArgumentException("unknown store URL '" + redact(url) + "'; supported prefixes: "
                + String.join(", ", known));
    }

    /**
     * Removes a password from a URL for messages.
     *
     * @param url a store URL
     * @return the URL with any {@code user:password@} and {@code password=} value masked
     */
    public static String redact(String url) {
        return url.replaceAll("//([^/@:]*):[^/@]*@", "//$1:***@")
                .replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
