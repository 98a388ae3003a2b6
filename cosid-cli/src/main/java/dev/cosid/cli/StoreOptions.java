package dev.cosid.cli;

import dev.cosid.lease.Namespaces;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options every command that talks to a store shares. */
final class StoreOptions {

    /**
     * Every store URL form, one a line, for the help of each option that takes one; CommandHelpTest checks that
     * it names every scheme a store module opens.
     */
    static final String URLS = "%nsqlite:PATH or jdbc:sqlite:PATH"
            + "%njdbc:postgresql://HOST[:PORT][,HOST[:PORT]...]/DB"
            + "%njdbc:mariadb:// or jdbc:mysql://HOST[:PORT]/DB"
            + "%njdbc:h2:PATH or jdbc:h2:tcp://HOST[:PORT]/DB"
            + "%nredis://HOST[:PORT][/DB], rediss:// for TLS"
            + "%nredis-sentinel://HOST:PORT[,HOST:PORT...]#PRIMARY"
            + "%nredis-cluster://HOST:PORT[,HOST:PORT...]"
            + "%nzookeeper://HOST[:PORT][,...][/CHROOT]"
            + "%netcd://HOST:PORT[,HOST:PORT...][/PREFIX]"
            + "%nmemory: (one process)";

    @Option(names = "--store", paramLabel = "URL",
            description = "the lease store, one of these (docs/stores.md); messages show it with its password "
                    + "masked:" + URLS + "%n(default: ${DEFAULT-VALUE})",
            defaultValue = CosIdCommand.DEFAULT_STORE)
    String store;

    @Option(names = "--namespace", paramLabel = "NS",
            description = "the namespace: 1-64 of A-Z a-z 0-9 . _ - (default: ${DEFAULT-VALUE})",
            defaultValue = CosIdCommand.DEFAULT_NAMESPACE)
    String namespace;

    /** Checks the namespace before any store call. */
    String namespace() {
        return Namespaces.require(namespace);
    }

    /** The lines that tell an existing user of the store URL what changed in this release (the CLI logs nothing). */
    List<String> notices() {
        List<String> lines = new ArrayList<>();
        dev.cosid.redis.RedisLeaseStoreProvider.notice(store).ifPresent(lines::add);
        dev.cosid.jdbc.JdbcLeaseStoreProvider.notice(store).ifPresent(lines::add);
        return lines;
    }
}
