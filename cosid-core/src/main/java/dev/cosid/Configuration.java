package dev.cosid;

import dev.cosid.time.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code cosid.*} configuration keys to a runtime builder, naming the key of a bad value.
 *
 * <p>Keys of CosId 2.x that have a counterpart here are applied to it, or have nothing left to do,
 * and log a warning naming the key to use instead; the others are refused with a message saying
 * what replaces them, or that nothing does.
 */
final class Configuration {

    private static final Logger LOG = LoggerFactory.getLogger(Configuration.class);

    private static final Map<String, BiConsumer<CosIdRuntime.Builder, String>> KEYS = Map.ofEntries(
            Map.entry("cosid.namespace", CosIdRuntime.Builder::namespace),
            Map.entry("cosid.store", CosIdRuntime.Builder::store),
            Map.entry("cosid.owner-key", CosIdRuntime.Builder::ownerKey),
            Map.entry("cosid.ttl", (b, v) -> b.ttl(Durations.parse(v))),
            Map.entry("cosid.tolerance", (b, v) -> b.tolerance(Durations.parse(v))),
            Map.entry("cosid.bits", (b, v) -> b.bits(Integer.parseInt(v.trim()))),
            Map.entry("cosid.preferred-slot", (b, v) -> b.preferredSlot(Integer.parseInt(v.trim()))),
            Map.entry("cosid.max-wait", (b, v) -> b.maxWait(Durations.parse(v))),
            Map.entry("cosid.max-lead", (b, v) -> b.maxLead(Durations.parse(v))),
            Map.entry("cosid.ticking-clock", (b, v) -> b.tickingClock(bool(v))),
            Map.entry("cosid.acquire-timeout", (b, v) -> b.acquireTimeout(Durations.parse(v))),
            Map.entry("cosid.cold-start-guard", (b, v) -> b.coldStartGuard(bool(v))),
            Map.entry("cosid.takeover-guard", (b, v) -> b.takeoverGuard(bool(v))),
            Map.entry("cosid.machine.static.slot", (b, v) -> b.staticSlot(Integer.parseInt(v.trim()))),
            Map.entry("cosid.machine.static.state-file", (b, v) -> b.stateFile(Path.of(v.trim()))),
            Map.entry("cosid.machine.static.ahead", (b, v) -> b.ahead(Durations.parse(v))),
            Map.entry("cosid.machine.static.not-before", (b, v) -> b.notBefore(Instant.parse(v.trim()))),
            Map.entry("cosid.machine.static.allow-future-not-before", (b, v) -> b.allowFutureNotBefore(bool(v))));

    /** What a CosId 2.x key became: applied (or with nothing left to do) and warned about, or refused. */
    private record Legacy(String key, boolean prefix, Verdict verdict) {
        boolean matches(String normalized) {
            return prefix ? normalized.startsWith(key) : normalized.equals(key);
        }
    }

    /** Judges one value of a CosId 2.x key: applies it and returns the warning, or throws the refusal. */
    @FunctionalInterface
    private interface Verdict {
        String apply(CosIdRuntime.Builder builder, String key, String value);
    }

    private static final String GENERATORS = "runtime.snowflake(NAME, layout) (Spring Boot: cosid.generators.NAME.layout)";

    private static final String SEGMENTS = "runtime.segment(NAME, policy) (Spring Boot: cosid.segments.NAME.min-step, "
            + ".max-step, .prefetch)";

    private static final List<Legacy> LEGACY = List.of(
            exact("cosid.enabled", (b, k, v) -> "a runtime is always enabled once built; the Spring Boot starter "
                    + "reads cosid.enabled=false to build none"),
            exact("cosid.machine.enabled", (b, k, v) -> isFalse(v)
                    ? refuse(k, v, "nothing replaces it: every snowflake id needs a slot, from a store (cosid.store) "
                        + "or static (cosid.machine.static.slot)")
                    : "every runtime holds a slot: set cosid.store, or cosid.machine.static.slot"),
            exact("cosid.snowflake.enabled", (b, k, v) -> "generators are created by name: " + GENERATORS),
            exact("cosid.machine.machine-bit", (b, k, v) -> {
                b.bits(Integer.parseInt(v.trim()));
                return "replaced by cosid.bits";
            }),
            exact("cosid.machine.instance-id", (b, k, v) -> {
                b.ownerKey(v.trim());
                return "replaced by cosid.owner-key";
            }),
            exact("cosid.machine.stable", (b, k, v) -> "a free slot whose last owner had the same key is preferred "
                    + "anyway: keep cosid.owner-key stable across restarts"),
            exact("cosid.machine.port", (b, k, v) -> "the default owner key is host:pid (host:port under Spring Boot); "
                    + "set cosid.owner-key to choose it"),
            exact("cosid.machine.distributor.type", Configuration::distributor),
            exact("cosid.machine.distributor.manual.machine-id", (b, k, v) -> {
                b.staticSlot(Integer.parseInt(v.trim()));
                return "replaced by cosid.machine.static.slot (with cosid.machine.static.state-file)";
            }),
            prefix("cosid.machine.distributor.", (b, k, v) -> refuse(k, v, "nothing replaces it: the store is "
                    + "configured by its URL alone, cosid.store")),
            exact("cosid.machine.guarder.enabled", (b, k, v) -> isFalse(v)
                    ? refuse(k, v, "nothing replaces it: a lease is always renewed, and ids stop at its ceiling")
                    : "the lease is always renewed, every cosid.ttl/3"),
            exact("cosid.machine.guarder.safe-guard-duration", (b, k, v) -> {
                b.ttl(Durations.parse(v));
                return "replaced by cosid.ttl: a crashed holder's slot is free again after ttl + tolerance";
            }),
            exact("cosid.machine.guarder.delay", (b, k, v) -> "renewals run every cosid.ttl/3"),
            exact("cosid.machine.guarder.initial-delay", (b, k, v) -> "renewals run every cosid.ttl/3"),
            exact("cosid.machine.clock-backwards.spin-threshold", (b, k, v) ->
                    "nextId() waits up to cosid.max-wait for a clock that stepped back"),
            exact("cosid.machine.clock-backwards.broken-threshold", (b, k, v) -> {
                b.maxWait(Duration.ofMillis(Long.parseLong(v.trim())));
                return "replaced by cosid.max-wait (how long nextId() waits before it throws)";
            }),
            prefix("cosid.machine.state-storage.", (b, k, v) -> refuse(k, v, "replaced by "
                    + "cosid.machine.static.state-file, a file of another format: carry the old state over with "
                    + "'./cosid migrate --from-file DIR --to-state-file FILE --slot N' (docs/migration.md)")),
            exact("cosid.snowflake.epoch", (b, k, v) -> {
                if (Long.parseLong(v.trim()) == IdLayout.COSID_EPOCH_MILLIS) {
                    return "every layout preset starts at this epoch already";
                }
                return refuse(k, v, "replaced by a layout of its own: runtime.snowflake(NAME, new IdLayout(epoch, "
                        + "...)) (Spring Boot: cosid.generators.NAME.epoch)");
            }),
            exact("cosid.snowflake.zone-id", (b, k, v) -> refuse(k, v, "nothing replaces it: ids carry UTC "
                    + "milliseconds, and the friendly form (IdLayout.friendly) is UTC")),
            prefix("cosid.snowflake.", (b, k, v) -> refuse(k, v, "replaced by " + GENERATORS)),
            exact("cosid.segment.enabled", (b, k, v) -> "segment generators are created by name: " + SEGMENTS),
            exact("cosid.segment.mode", (b, k, v) -> "every segment generator prefetches ranges as CosId's "
                    + "SegmentChainId does, sized to the rate (" + SEGMENTS + ")"),
            exact("cosid.segment.share.enabled", (b, k, v) -> isFalse(v)
                    ? refuse(k, v, "nothing replaces it: the shared segment generator (Spring Boot: the lazy "
                        + "__share__SegmentId bean) reserves nothing until it is first used")
                    : "the shared segment generator is runtime.segment(\"__share__\") (Spring Boot: the "
                        + "__share__SegmentId bean)"),
            exact("cosid.segment.share.step", (b, k, v) -> {
                long step = Long.parseLong(v.trim());
                b.segmentPolicy(SegmentPolicy.of(step, Math.max(step, SegmentPolicy.DEFAULT.maxStep()),
                        SegmentPolicy.DEFAULT.prefetch()));
                return "replaced by the runtime's segment policy, ranges of at least " + step + " ids "
                        + "(Spring Boot: cosid.segments.NAME.min-step)";
            }),
            exact("cosid.segment.chain.safe-distance", (b, k, v) -> "ranges are reserved ahead by how fast ids are "
                    + "used: cosid.segments.NAME.prefetch (how long of use one range holds, default 1s)"),
            prefix("cosid.segment.chain.prefetch-worker.", (b, k, v) -> "ranges are reserved on the runtime's own "
                    + "keeper thread; nothing to configure"),
            prefix("cosid.segment.distributor.", (b, k, v) -> refuse(k, v, "segment counters live in cosid.store "
                    + "beside the leases: carry CosId's counters over first with './cosid migrate' "
                    + "(docs/migration.md), or ids repeat; then remove this key")),
            prefix("cosid.segment.", (b, k, v) -> refuse(k, v, "replaced by " + SEGMENTS + "; a counter's "
                    + "offset is carried over once with './cosid migrate' (docs/migration.md), a string form by "
                    + "IdStrings.toRadix62(id); docs/segments.md")),
            prefix("cosid.generator.", (b, k, v) -> refuse(k, v, "nothing replaces the radix CosIdGenerator: "
                    + "use a snowflake generator, and IdStrings.toRadix62(id) for a string form")),
            exact("cosid.zookeeper.enabled", (b, k, v) -> "the ZooKeeper store is chosen by its URL: cosid.store: "
                    + "zookeeper://HOST:PORT"),
            exact("cosid.zookeeper.connect-string", (b, k, v) -> refuse(k, v, "replaced by cosid.store: "
                    + "zookeeper://" + v.trim())),
            prefix("cosid.zookeeper.", (b, k, v) -> refuse(k, v, "nothing replaces it: the ZooKeeper store keeps "
                    + "its own session; it takes only its URL, cosid.store: zookeeper://HOST:PORT")),
            prefix("cosid.proxy.", (b, k, v) -> refuse(k, v, "nothing replaces the CosId proxy: every instance "
                    + "leases its slot from the store itself (cosid.store)")));

    private Configuration() {
    }

    static void apply(CosIdRuntime.Builder builder, Map<String, String> properties) {
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith("cosid.")) {
                continue;
            }
            BiConsumer<CosIdRuntime.Builder, String> setter = KEYS.get(key);
            try {
                if (setter != null) {
                    setter.accept(builder, entry.getValue());
                } else {
                    applyLegacy(builder, key, entry.getValue());
                }
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException(key + " = '" + entry.getValue() + "' does not parse: "
                        + e.getMessage(), e);
            } catch (LegacyKeyException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + " = '" + entry.getValue() + "': " + e.getMessage(), e);
            }
        }
    }

    private static void applyLegacy(CosIdRuntime.Builder builder, String key, String value) {
        String normalized = normalize(key);
        for (Legacy legacy : LEGACY) {
            if (legacy.matches(normalized)) {
                String warning = legacy.verdict().apply(builder, key, value);
                LOG.warn("{} is a CosId 2.x key: {}", key, warning);
                return;
            }
        }
        throw new LegacyKeyException("unknown configuration key '" + key + "'; known: " + new TreeSet<>(KEYS.keySet()));
    }

    private static String distributor(CosIdRuntime.Builder builder, String key, String value) {
        String type = value.trim().toLowerCase(Locale.ROOT).replace('-', '_');
        return switch (type) {
            case "manual" -> "replaced by cosid.machine.static.slot (with cosid.machine.static.state-file)";
            case "jdbc" -> refuse(key, value, "replaced by cosid.store: a jdbc: URL such as jdbc:postgresql://HOST/DB "
                    + "(Spring Boot: cosid.store=datasource, the application's DataSource)");
            case "redis" -> refuse(key, value, "replaced by cosid.store: redis://HOST:PORT (Spring Boot: "
                    + "cosid.store=redis, the application's Redis connection)");
            case "zookeeper" -> refuse(key, value, "replaced by cosid.store: zookeeper://HOST:PORT");
            case "stateful_set" -> refuse(key, value, "replaced by cosid.machine.static.slot: ${POD_ORDINAL} (with "
                    + "cosid.machine.static.state-file), or by cosid.preferred-slot with a store");
            case "mongo" -> refuse(key, value, "nothing replaces it: CosId 5 has no MongoDB store; use a JDBC, "
                    + "Redis or ZooKeeper store (cosid.store)");
            case "proxy" -> refuse(key, value, "nothing replaces the CosId proxy: every instance leases its slot "
                    + "from the store itself (cosid.store)");
            default -> refuse(key, value, "unknown CosId 2.x distributor; the store is chosen by cosid.store");
        };
    }

    /** Lower case and kebab case, as Spring Boot's relaxed binding writes a key: machineBit is machine-bit. */
    private static String normalize(String key) {
        StringBuilder out = new StringBuilder(key.length() + 8);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0 && key.charAt(i - 1) != '.' && key.charAt(i - 1) != '-') {
                    out.append('-');
                }
                out.append(Character.toLowerCase(c));
            } else {
                out.append(c == '_' ? '-' : c);
            }
        }
        return out.toString();
    }

    private static Legacy exact(String key, Verdict verdict) {
        return new Legacy(key, false, verdict);
    }

    private static Legacy prefix(String key, Verdict verdict) {
        return new Legacy(key, true, verdict);
    }

    private static String refuse(String key, String value, String replacement) {
        throw new LegacyKeyException(key + " = '" + value + "' is a CosId 2.x key that CosId 5 does not take: "
                + replacement);
    }

    private static boolean isFalse(String value) {
        return value.trim().equalsIgnoreCase("false");
    }

    private static boolean bool(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("'" + text + "' is neither true nor false");
        }
        return Boolean.parseBoolean(value);
    }

    /** A refusal whose message is complete already: passed on without the key prefix. */
    private static final class LegacyKeyException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        LegacyKeyException(String message) {
            super(message);
        }
    }
}
