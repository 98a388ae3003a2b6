package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import java.util.List;

/**
 * Opens ZooKeeper stores: {@code zookeeper://host:port[,host:port...][/chroot]}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("zookeeper://127.0.0.1:2181/ids");
 * }</pre>
 */
public final class ZooKeeperLeaseStoreProvider implements LeaseStoreProvider {

    @Override
    public List<String> prefixes() {
        return List.of("zookeeper://");
    }

    @Override
    public LeaseStore open(String url) {
        String connectString = url.substring("zookeeper://".length());
        if (connectString.isBlank() || connectString.startsWith("/")) {
            throw new IllegalArgumentException("store URL '" + url + "' names no server; use zookeeper://host:port[/chroot]");
        }
        return new ZooKeeperLeaseStore(connectString, url);
    }
}
