package dev.cosid;

import dev.cosid.time.Durations;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;

/** Applies {@code cosid.*} configuration keys to a runtime builder, naming the key of a bad value. */
final class Configuration {

    private static final Map<String, BiConsumer<CosIdRuntime.Builder, String>> KEYS = Map.ofEntries(
            Map.entry("cosid.namespace", CosIdRuntime.Builder::namespace),
            Map.entry("cosid.store", CosIdRuntime.Builder::store),
            Map.entry("cosid.owner-key", CosIdRuntime.Builder::ownerKey),
            Map.entry("cosid.ttl", (b, v) -> b.ttl(Durations.parse(v))),
            Map.entry("cosid.tolerance", (b, v) -> b.tolerance(Durations.parse(v))),
            Map.entry("cosid.bits", (b, v) -> b.bits(Integer.parseInt(v.trim()))),
            Map.entry("cosid.preferred-slot", (b, v) -> b.preferredSlot(Integer.parseInt(v.trim()))),
            Map.entry("cosid.max-wait", (b, v) -> b.maxWait(Durations.parse(v))),
            Map.entry("cosid.acquire-timeout", (b, v) -> b.acquireTimeout(Durations.parse(v))),
            Map.entry("cosid.cold-start-guard", (b, v) -> b.coldStartGuard(bool(v))),
            Map.entry("cosid.machine.static.slot", (b, v) -> b.staticSlot(Integer.parseInt(v.trim()))),
            Map.entry("cosid.machine.static.state-file", (b, v) -> b.stateFile(Path.of(v.trim()))),
            Map.entry("cosid.machine.static.ahead", (b, v) -> b.ahead(Durations.parse(v))),
            Map.entry("cosid.machine.static.not-before", (b, v) -> b.notBefore(Instant.parse(v.trim()))));

    private Configuration() {
    }

    static void apply(CosIdRuntime.Builder builder, Map<String, String> properties) {
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String key = entry.getKey();
            if (!key.startsWith("cosid.")) {
                continue;
            }
            BiConsumer<CosIdRuntime.Builder, String> setter = KEYS.get(key);
            if (setter == null) {
                throw new IllegalArgumentException("unknown configuration key '" + key + "'; known: "
                        + new java.util.TreeSet<>(KEYS.keySet()));
            }
            try {
                setter.accept(builder, entry.getValue());
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException(key + " = '" + entry.getValue() + "' does not parse: "
                        + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + " = '" + entry.getValue() + "': " + e.getMessage(), e);
            }
        }
    }

    private static boolean bool(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("'" + text + "' is neither true nor false");
        }
        return Boolean.parseBoolean(value);
    }
}
