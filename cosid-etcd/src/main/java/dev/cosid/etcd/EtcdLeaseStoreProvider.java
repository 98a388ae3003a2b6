package dev.cosid.etcd;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.LeaseStores;
import dev.cosid.time.Clock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Opens etcd stores: {@code etcd://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...][/PREFIX]}, plain-text
 * gRPC to every member listed. Every key lives under {@code /PREFIX/cosid/namespaces/}, or
 * {@code /cosid/namespaces/} without a prefix.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379/ids");
 * }</pre>
 */
public final class EtcdLeaseStoreProvider implements LeaseStoreProvider {

    private static final String SCHEME = "etcd://";
    /** Names of A-Z a-z 0-9 . _ - separated by '/', none of them '.' or '..'. */
    private static final Pattern PREFIX = Pattern.compile("(?!\\.\\.?(/|$))[\\w.\\-]+(/(?!\\.\\.?(/|$))[\\w.\\-]+)*");
    private static final Pattern ENDPOINT = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.\\-]+):(\\d{1,5})");
    private static final String FORM = "etcd://HOST:PORT[,HOST:PORT...][/PREFIX]";

    @Override
    public List<String> prefixes() {
        return List.of(SCHEME);
    }

    @Override
    public LeaseStore open(String url) {
        String description = LeaseStores.redact(url);
        String rest = url.substring(SCHEME.length());
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String info = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = info.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("store URL '" + description + "' has a user without a password; use "
                        + "etcd://USER:PASSWORD@HOST:PORT");
            }
            user = URLDecoder.decode(info.substring(0, colon), StandardCharsets.UTF_8);
            password = URLDecoder.decode(info.substring(colon + 1), StandardCharsets.UTF_8);
        }
        int slash = rest.indexOf('/');
        String servers = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        if (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        if (servers.isBlank()) {
            throw new IllegalArgumentException("store URL '" + description + "' names no server; use " + FORM);
        }
        List<String> endpoints = new ArrayList<>();
        for (String server : servers.split(",", -1)) {
            var matcher = ENDPOINT.matcher(server);
            if (!matcher.matches() || Integer.parseInt(matcher.group(2)) < 1 || Integer.parseInt(matcher.group(2)) > 65535) {
                throw new IllegalArgumentException("'" + server + "' in store URL '" + description
                        + "' is not HOST:PORT; use " + FORM);
            }
            endpoints.add("http://" + server);
        }
        if (!prefix.isEmpty() && !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("the prefix '/" + prefix + "' of store URL '" + description
                    + "' is not a path of names of A-Z a-z 0-9 . _ - (and neither . nor ..)");
        }
        ClientBuilder builder = Client.builder()
                .endpoints(endpoints.toArray(String[]::new))
                .connectTimeout(EtcdLeaseStore.TIMEOUT)
                // a call to a member that stopped answering fails within the store's bound and the next goes elsewhere
                .waitForReady(false);
        if (user != null) {
            builder.user(ByteSequence.from(user, StandardCharsets.UTF_8))
                    .password(ByteSequence.from(password, StandardCharsets.UTF_8));
        }
        return new EtcdLeaseStore(builder.build(), prefix, description, Clock.system());
    }
}
