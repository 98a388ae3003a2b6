package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.LeaseStores;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Opens ZooKeeper stores: {@code zookeeper://host:port[,host:port...][/chroot]}. The chroot is created
 * when it is missing.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("zookeeper://127.0.0.1:2181/ids");
 * }</pre>
 */
public final class ZooKeeperLeaseStoreProvider implements LeaseStoreProvider {

    /** Names of A-Z a-z 0-9 . _ - separated by '/', none of them '.' or '..'. */
    private static final Pattern CHROOT = Pattern.compile("(?!\\.\\.?(/|$))[\\w.\\-]+(/(?!\\.\\.?(/|$))[\\w.\\-]+)*");

    @Override
    public List<String> prefixes() {
        return List.of("zookeeper://");
    }

    @Override
    public LeaseStore open(String url) {
        String description = LeaseStores.redact(url);
        String rest = url.substring("zookeeper://".length());
        if (rest.contains("@")) {
            throw new IllegalArgumentException("store URL '" + description + "' has a user or password, which a "
                    + "ZooKeeper connect string cannot carry; use zookeeper://host:port[/chroot]");
        }
        int slash = rest.indexOf('/');
        String servers = slash < 0 ? rest : rest.substring(0, slash);
        String chroot = slash < 0 ? "" : rest.substring(slash + 1);
        if (chroot.endsWith("/")) {
            chroot = chroot.substring(0, chroot.length() - 1);
        }
        if (servers.isBlank()) {
            throw new IllegalArgumentException("store URL '" + description + "' names no server; use "
                    + "zookeeper://host:port[/chroot]");
        }
        if (!chroot.isEmpty() && !CHROOT.matcher(chroot).matches()) {
            throw new IllegalArgumentException("the chroot '/" + chroot + "' of store URL '" + description
                    + "' is not a path of names of A-Z a-z 0-9 . _ - (and neither . nor ..)");
        }
        return new ZooKeeperLeaseStore(servers, chroot.isEmpty() ? null : chroot, description);
    }
}
