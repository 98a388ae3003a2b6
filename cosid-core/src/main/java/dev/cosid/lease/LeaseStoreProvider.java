package dev.cosid.lease;

import java.util.List;

/**
 * Opens lease stores for the URL schemes one module supports; found with {@link java.util.ServiceLoader}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // META-INF/services/dev.cosid.lease.LeaseStoreProvider names the implementation
 * public final class JdbcLeaseStoreProvider implements LeaseStoreProvider { ... }
 * }</pre>
 */
public interface LeaseStoreProvider {

    /** Returns the URL prefixes this provider opens, such as {@code sqlite:}. */
    List<String> prefixes();

    /**
     * Opens a store.
     *
     * @param url a URL with one of this provider's prefixes
     * @return the store, owned by the caller
     */
    LeaseStore open(String url);
}
