package dev.cosid.coordination;

import java.util.List;

/**
 * Opens coordination transports for the store URL schemes one module supports; found with
 * {@link java.util.ServiceLoader}, as {@code dev.cosid.lease.LeaseStoreProvider} is for the ids.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // META-INF/services/dev.cosid.coordination.CoordinationTransportProvider names the implementation
 * public final class JdbcCoordinationTransportProvider implements CoordinationTransportProvider { ... }
 * }</pre>
 */
public interface CoordinationTransportProvider {

    /** Returns the URL prefixes this provider opens, such as {@code sqlite:}, in lower case. */
    List<String> prefixes();

    /**
     * Opens a transport.
     *
     * @param url a URL with one of this provider's prefixes
     * @return the transport, owned by the caller
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordinationException when the store cannot be reached
     */
    CoordinationTransport open(String url);
}
