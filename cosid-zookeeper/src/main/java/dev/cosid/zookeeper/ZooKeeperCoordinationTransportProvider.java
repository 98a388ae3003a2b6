package dev.cosid.zookeeper;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransportProvider;
import java.util.List;

/**
 * Opens {@link ZooKeeperCoordinationTransport}s by the id store's URL, {@code zookeeper://}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("zookeeper://127.0.0.1:2181/app");
 * }</pre>
 */
public final class ZooKeeperCoordinationTransportProvider implements CoordinationTransportProvider {

    @Override
    public List<String> prefixes() {
        return new ZooKeeperLeaseStoreProvider().prefixes();
    }

    @Override
    public CoordinationTransport open(String url) {
        return ZooKeeperCoordinationTransport.open(url);
    }
}
