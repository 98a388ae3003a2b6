package dev.cosid.zookeeper;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.LeaseStores;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Opens ZooKeeper stores: {@code zookeeper://host[:port][,host[:port]...][/chroot]} (the port defaults to
 * 2181). The chroot is created when it is missing.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("zookeeper://127.0.0.1:2181/ids");
 * }</pre>
 */
public final class ZooKeeperLeaseStoreProvider implements LeaseStoreProvider {

    /** A host name, an IPv4 address or a bracketed IPv6 address. */
    private static final Pattern HOST = Pattern.compile("\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9_.\\-]+");
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
        for (String server : servers.split(",", -1)) {
            checkServer(server, description);
        }
        if (!chroot.isEmpty() && !CHROOT.matcher(chroot).matches()) {
            throw new IllegalArgumentException("the chroot '/" + chroot + "' of store URL '" + description
                    + "' is not a path of names of A-Z a-z 0-9 . _ - (and neither . nor ..)");
        }
        return new ZooKeeperLeaseStore(servers, chroot.isEmpty() ? null : chroot, description);
    }

    /**
     * Checks the hosts and ports of a {@code zookeeper://host[:port][,host[:port]...][/chroot]} URL without
     * connecting, for a tool that reads another ZooKeeper (a migration source) with its own client.
     *
     * @param url the URL
     * @throws IllegalArgumentException naming the malformed part
     */
    public static void checkAddress(String url) {
        String rest = url.substring(url.indexOf("//") + 2);
        int slash = rest.indexOf('/');
        for (String server : (slash < 0 ? rest : rest.substring(0, slash)).split(",", -1)) {
            checkServer(server, LeaseStores.redact(url));
        }
    }

    /**
     * Checks one {@code host[:port]} of the connect string, so a typo is one clear line: the client would
     * otherwise take {@code 127.0.0.1:notaport} for a host and retry it until the connect bound.
     */
    private static void checkServer(String server, String description) {
        int colon = server.startsWith("[") ? server.indexOf(':', Math.max(server.indexOf(']'), 0))
                : server.lastIndexOf(':');
        String host = colon < 0 ? server : server.substring(0, colon);
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException("server '" + server + "' in store URL '" + description
                    + "' is not host:port; use zookeeper://host:port[,host:port...][/chroot]");
        }
        if (colon >= 0) {
            String port = server.substring(colon + 1);
            if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65_535) {
                throw new IllegalArgumentException("port '" + port + "' of host " + host + " in store URL '"
                        + description + "' is not a number from 1 to 65535");
            }
        }
    }
}
