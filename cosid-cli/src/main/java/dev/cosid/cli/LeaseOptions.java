package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.Limits;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * The options of a slot lease in a store, which every command that starts a runtime shares: {@code generate},
 * {@code serve} and {@code segment}.
 */
final class LeaseOptions {

    @Option(names = "--owner-key", paramLabel = "KEY", description = "this instance's identity (default host:pid)")
    String ownerKey;

    @Option(names = "--ttl", paramLabel = "D", converter = Durations.class, defaultValue = "30s",
            description = "lease time to live (default: ${DEFAULT-VALUE})")
    Duration ttl;

    @Option(names = "--tolerance", paramLabel = "D", converter = Durations.class, defaultValue = "1s",
            description = "how far past expiry a holder may issue; fixed per namespace (default: ${DEFAULT-VALUE})")
    Duration tolerance;

    @Option(names = "--cold-start-guard",
            description = "a slot record created where none existed starts past now + ttl + tolerance, so a store "
                    + "that lost its data never hands out a window an earlier holder may still use; costs one wait of "
                    + "ttl + tolerance per newly created slot record (docs/stores.md)")
    boolean coldStartGuard;

    @Option(names = "--takeover-guard",
            description = "a slot taken from a holder that did not release it (an expired lease) starts past now + "
                    + "ttl + tolerance, so a record a failover stepped back never hands out a window its holder may "
                    + "still use; costs one wait of ttl + tolerance on a taken-over slot only (docs/stores.md)")
    boolean takeoverGuard;

    /** Returns a runtime builder with the namespace, the owner key, the lease timing and the listener. */
    CosIdRuntime.Builder builder(StoreOptions storeOptions, int slotBits, CosIdListener listener) {
        CosIdRuntime.Builder builder = CosIdRuntime.builder()
                .namespace(storeOptions.namespace())
                .ttl(ttl)
                .tolerance(tolerance)
                .bits(slotBits)
                .listener(listener);
        if (ownerKey != null) {
            builder.ownerKey(ownerKey);
        }
        return builder;
    }

    /** Points a builder at the store with the guards: the runtime opens the store at start. */
    void store(CosIdRuntime.Builder builder, StoreOptions storeOptions) {
        builder.store(storeOptions.store).coldStartGuard(coldStartGuard);
        if (takeoverGuard) {
            builder.takeoverGuard(true);
        }
        // without the flag the runtime guards takeovers exactly where the store's failover may step back
        String store = storeOptions.store == null ? "" : storeOptions.store.toLowerCase(java.util.Locale.ROOT);
        boolean guardedByDefault = store.startsWith("redis-cluster://")
                || store.contains("allowrepeatedidsonpartition=true");
        if (coldStartGuard || takeoverGuard || guardedByDefault) {
            // a new or taken-over slot's first id waits out ttl + tolerance once: let nextId wait that long
            Duration wait = ttl.plus(tolerance).plusSeconds(1);
            builder.maxWait(wait.compareTo(Limits.MAX_WAIT_MAX) > 0 ? Limits.MAX_WAIT_MAX : wait);
        }
    }
}
