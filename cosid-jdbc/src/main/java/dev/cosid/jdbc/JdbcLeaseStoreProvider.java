package dev.cosid.jdbc;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import java.nio.file.Path;
import java.util.List;

/**
 * Opens JDBC stores by URL: {@code sqlite:PATH} (a leading {@code ~/} is the home directory).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("sqlite:~/.cosid/cosid.db");
 * }</pre>
 */
public final class JdbcLeaseStoreProvider implements LeaseStoreProvider {

    @Override
    public List<String> prefixes() {
        return List.of("sqlite:");
    }

    @Override
    public LeaseStore open(String url) {
        String path = url.substring("sqlite:".length());
        if (path.isBlank()) {
            throw new IllegalArgumentException("store URL '" + url + "' names no file; use sqlite:PATH");
        }
        if (path.equals("~") || path.startsWith("~/")) {
            path = System.getProperty("user.home") + path.substring(1);
        }
        return JdbcLeaseStore.sqlite(Path.of(path));
    }
}
