package dev.cosid.jdbc;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransportProvider;
import java.util.List;

/**
 * Opens {@link JdbcCoordinationTransport}s by the id stores' URLs: {@code sqlite:PATH}, {@code jdbc:sqlite:},
 * {@code jdbc:postgresql:}, {@code jdbc:mariadb:}, {@code jdbc:mysql:} and {@code jdbc:h2:}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("sqlite:/var/lib/cosid/cosid.db");
 * }</pre>
 */
public final class JdbcCoordinationTransportProvider implements CoordinationTransportProvider {

    @Override
    public List<String> prefixes() {
        return new JdbcLeaseStoreProvider().prefixes();
    }

    @Override
    public CoordinationTransport open(String url) {
        return JdbcCoordinationTransport.open(url);
    }
}
