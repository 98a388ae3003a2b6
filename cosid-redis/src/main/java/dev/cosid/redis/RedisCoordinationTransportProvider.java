package dev.cosid.redis;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransportProvider;
import java.util.List;

/**
 * Opens {@link RedisCoordinationTransport}s by the id stores' URLs: {@code redis://}, {@code rediss://},
 * {@code redis-sentinel://} and {@code redis-cluster://}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("redis://127.0.0.1:6379");
 * }</pre>
 */
public final class RedisCoordinationTransportProvider implements CoordinationTransportProvider {

    @Override
    public List<String> prefixes() {
        return new RedisLeaseStoreProvider().prefixes();
    }

    @Override
    public CoordinationTransport open(String url) {
        return RedisCoordinationTransport.open(url);
    }
}
