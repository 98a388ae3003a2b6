package dev.cosid.cli;

import dev.cosid.lease.Namespaces;
import picocli.CommandLine.Option;

/** The options every command that talks to a store shares. */
final class StoreOptions {

    @Option(names = "--store", paramLabel = "URL",
            description = "the lease store: sqlite:PATH, jdbc:postgresql:..., jdbc:mariadb:..., jdbc:h2:..., "
                    + "redis://HOST:PORT, zookeeper://HOST:PORT[/chroot], memory: (default: ${DEFAULT-VALUE}); "
                    + "messages show it with its password masked",
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
}
