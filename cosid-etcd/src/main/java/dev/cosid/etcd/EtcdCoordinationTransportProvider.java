package dev.cosid.etcd;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransportProvider;
import java.util.List;

/**
 * Opens {@link EtcdCoordinationTransport}s by the id store's URL, {@code etcd://}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("etcd://127.0.0.1:2379/app");
 * }</pre>
 */
public final class EtcdCoordinationTransportProvider implements CoordinationTransportProvider {

    @Override
    public List<String> prefixes() {
        return new EtcdLeaseStoreProvider().prefixes();
    }

    @Override
    public CoordinationTransport open(String url) {
        return EtcdCoordinationTransport.open(url);
    }
}
