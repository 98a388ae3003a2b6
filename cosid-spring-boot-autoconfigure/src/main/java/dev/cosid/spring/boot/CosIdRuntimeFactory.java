package dev.cosid.spring.boot;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.Limits;
import dev.cosid.SegmentPolicy;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreProvider;
import dev.cosid.lease.Names;
import dev.cosid.lease.Namespaces;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;


/**
 * Builds and starts the runtime from the properties: checks every value first and names the key of a
 * bad one, applies CosId 2.x keys through the core's own table, opens the store, and creates the
 * configured generators.
 */
final class CosIdRuntimeFactory {

    private static final Logger LOG = LoggerFactory.getLogger(CosIdRuntimeFactory.class);

    /** The keys this starter binds, in Spring's uniform form (lower case, no dashes). */
    private static final Set<String> OWN = Set.of("cosid.enabled", "cosid.namespace", "cosid.store", "cosid.ttl",
            "cosid.tolerance", "cosid.bits", "cosid.ownerkey", "cosid.preferredslot", "cosid.coldstartguard",
            "cosid.takeoverguard", "cosid.maxwait", "cosid.maxlead", "cosid.tickingclock", "cosid.acquiretimeout",
            "cosid.machine.static.slot", "cosid.machine.static.statefile",
            "cosid.machine.static.ahead", "cosid.machine.static.notbefore", "cosid.jackson.enabled",
            "cosid.jackson.longs");
    private static final Set<String> GENERATOR_FIELDS = Set.of("layout", "epoch", "unit", "timestampbits", "slotbits",
            "sequencebits");
    private static final Set<String> SEGMENT_FIELDS = Set.of("minstep", "maxstep", "prefetch");
    /** CosId 2.x's step of one segment provider: {@code cosid.segment.provider.NAME.step}. */
    private static final Pattern PROVIDER_STEP = Pattern.compile("cosid\\.segment\\.provider\\.(.+)\\.step");
    private static final String KNOWN = "cosid.enabled, cosid.namespace, cosid.store, cosid.ttl, cosid.tolerance, "
            + "cosid.bits, cosid.owner-key, cosid.preferred-slot, cosid.cold-start-guard, cosid.takeover-guard, "
            + "cosid.max-wait, cosid.max-lead, cosid.ticking-clock, cosid.acquire-timeout, "
            + "cosid.machine.static.{slot,state-file,ahead,not-before}, "
            + "cosid.generators.NAME.{layout,epoch,unit,timestamp-bits,slot-bits,sequence-bits}, "
            + "cosid.segments.NAME.{min-step,max-step,prefetch}, cosid.mybatis-plus.*, cosid.leadership.*, "
            + "cosid.jackson.{enabled,longs}";

    private final CosIdProperties properties;
    private final ConfigurableEnvironment environment;
    private final Map<String, CosIdStoreSource> sources = new LinkedHashMap<>();

    CosIdRuntimeFactory(CosIdProperties properties, ConfigurableEnvironment environment, List<CosIdStoreSource> sources) {
        this.properties = properties;
        this.environment = environment;
        sources.forEach(source -> this.sources.put(source.name(), source));
    }

    CosIdLifecycle start(CosIdListener listener, List<CosIdRuntimeCustomizer> customizers) {
        Map<String, String> legacy = otherKeys();
        String store = properties.getStore();
        String distributor = legacy.get("cosid.machine.distributor.type");
        if (distributor != null && store == null) {
            String type = distributor.trim().toLowerCase(Locale.ROOT);
            if (type.equals("jdbc") || type.equals("redis")) {
                store = type.equals("jdbc") ? "datasource" : "redis";
                legacy.remove("cosid.machine.distributor.type");
                LOG.warn("cosid.machine.distributor.type is a CosId 2.x key: replaced by cosid.store={}; using the "
                        + "application's {}", store, type.equals("jdbc") ? "DataSource" : "Redis connection");
            }
        }
        boolean staticSlot = properties.getMachine().getStatic().getSlot() != null
                || legacy.containsKey("cosid.machine.distributor.manual.machine-id");
        validate(store, staticSlot);
        Map<String, IdLayout> layouts = layouts();
        Map<String, SegmentPolicy> segmentPolicies = segmentPolicies(legacy);

        CosIdRuntime.Builder builder = CosIdRuntime.builder()
                .namespace(properties.getNamespace())
                .ttl(properties.getTtl())
                .tolerance(properties.getTolerance())
                .bits(properties.getBits())
                .ownerKey(properties.getOwnerKey() != null ? properties.getOwnerKey() : defaultOwnerKey())
                .coldStartGuard(properties.isColdStartGuard())
                .maxWait(properties.getMaxWait())
                .maxLead(properties.getMaxLead())
                .tickingClock(properties.isTickingClock())
                .listener(listener);
        if (properties.isTakeoverGuardSet()) {
            // unset, the runtime guards takeovers exactly where the store's failover may step records back
            builder.takeoverGuard(properties.isTakeoverGuard());
        }
        if (properties.getPreferredSlot() != null) {
            builder.preferredSlot(properties.getPreferredSlot());
        }
        if (properties.getAcquireTimeout() != null) {
            builder.acquireTimeout(properties.getAcquireTimeout());
        }
        CosIdProperties.Static fixed = properties.getMachine().getStatic();
        if (fixed.getSlot() != null) {
            builder.staticSlot(fixed.getSlot()).ahead(fixed.getAhead()).allowFutureNotBefore(fixed.isAllowFutureNotBefore());
            if (fixed.getStateFile() != null) {
                builder.stateFile(fixed.getStateFile());
            }
            if (fixed.getNotBefore() != null) {
                builder.notBefore(fixed.getNotBefore());
            }
        }
        applyLegacy(builder, legacy);

        List<AutoCloseable> afterClose = new ArrayList<>();
        String where = store != null ? store : "static slot";
        if (store != null) {
            CosIdStoreSource source = sources.get(store.trim().toLowerCase(Locale.ROOT));
            if (source != null) {
                LeaseStore opened = open(source, where);
                builder.store(opened);
                afterClose.add(opened);
            } else {
                builder.store(store.trim());
            }
        }
        customizers.forEach(customizer -> customizer.customize(builder));

        CosIdRuntime runtime;
        try {
            runtime = builder.start();
        } catch (IllegalArgumentException e) {
            closeAll(afterClose);
            if (String.valueOf(e.getMessage()).contains("store URL")) {
                throw new CosIdConfigurationException("cosid.store", store, e.getMessage(), storeAction(), e);
            }
            throw new CosIdStartException(properties.getNamespace(), where, e);
        } catch (RuntimeException e) {
            closeAll(afterClose);
            throw new CosIdStartException(properties.getNamespace(), where, e);
        }
        CosIdLifecycle lifecycle = new CosIdLifecycle(runtime, afterClose, segmentPolicies);
        try {
            for (Map.Entry<String, IdLayout> layout : layouts.entrySet()) {
                try {
                    runtime.snowflake(layout.getKey(), layout.getValue());
                } catch (IllegalArgumentException e) {
                    throw new CosIdConfigurationException("cosid.generators." + layout.getKey() + ".layout",
                            describe(properties.getGenerators().get(layout.getKey())), e.getMessage(), "Give generator '" + layout.getKey()
                            + "' at least cosid.bits (" + properties.getBits() + ") slot bits, or lower cosid.bits.", e);
                }
            }
        } catch (RuntimeException e) {
            lifecycle.destroy();
            throw e;
        }
        return lifecycle;
    }

    static CosIdGenerators generators(CosIdRuntime runtime, CosIdProperties properties,
                                      Map<String, SegmentPolicy> segmentPolicies) {
        Map<String, SnowflakeId> configured = new LinkedHashMap<>();
        for (String name : properties.getGenerators().keySet()) {
            runtime.generators().stream().filter(g -> g.name().equals(name)).findFirst()
                    .ifPresent(g -> configured.put(name, g));
        }
        return new CosIdGenerators(runtime, configured, segmentPolicies);
    }

    /**
     * The policies of {@code cosid.segments.NAME}, checked, with CosId 2.x's {@code cosid.segment.provider.NAME.step}
     * taken (and removed from the legacy keys) with a warning where no {@code cosid.segments.NAME} is set.
     */
    private Map<String, SegmentPolicy> segmentPolicies(Map<String, String> legacy) {
        Map<String, SegmentPolicy> policies = new LinkedHashMap<>();
        SegmentPolicy base = SegmentPolicy.DEFAULT;
        for (Map.Entry<String, CosIdProperties.Segment> entry : properties.getSegments().entrySet()) {
            String prefix = "cosid.segments." + entry.getKey();
            CosIdProperties.Segment segment = entry.getValue();
            requireName("cosid.segments", entry.getKey());
            try {
                long min = segment.getMinStep() != null ? segment.getMinStep() : base.minStep();
                long max = segment.getMaxStep() != null ? segment.getMaxStep() : Math.max(min, base.maxStep());
                policies.put(entry.getKey(), SegmentPolicy.of(min, max,
                        segment.getPrefetch() != null ? segment.getPrefetch() : base.prefetch()));
            } catch (IllegalArgumentException e) {
                throw new CosIdConfigurationException(prefix, "min-step " + segment.getMinStep() + ", max-step "
                        + segment.getMaxStep() + ", prefetch " + segment.getPrefetch(), e.getMessage(),
                        "Set " + prefix + ".min-step to 1.." + SegmentPolicy.STEP_MAX + ", .max-step to at least "
                        + "the min step, and .prefetch to 10ms..1h.", e);
            }
        }
        for (String key : List.copyOf(legacy.keySet())) {
            Matcher step = PROVIDER_STEP.matcher(key);
            if (!step.matches()) {
                continue;
            }
            String name = step.group(1);
            requireName("cosid.segment.provider", name);
            String value = legacy.remove(key);
            if (policies.containsKey(name)) {
                LOG.warn("{} is a CosId 2.x key: ignored, cosid.segments.{} is set", key, name);
                continue;
            }
            try {
                long size = Long.parseLong(value.trim());
                policies.put(name, SegmentPolicy.of(size, Math.max(size, base.maxStep()), base.prefetch()));
            } catch (IllegalArgumentException e) {
                throw new CosIdConfigurationException(key, value, e.getMessage(), "Set cosid.segments." + name
                        + ".min-step (1.." + SegmentPolicy.STEP_MAX + ") in its place.", e);
            }
            LOG.warn("{} is a CosId 2.x key: replaced by cosid.segments.{}.min-step (ranges grow with the rate up to "
                    + ".max-step)", key, name);
        }
        return policies;
    }

    private LeaseStore open(CosIdStoreSource source, String where) {
        try {
            return source.open();
        } catch (RuntimeException e) {
            throw new CosIdStartException(properties.getNamespace(), where, e);
        }
    }

    private void validate(String store, boolean staticSlot) {
        try {
            Namespaces.require(properties.getNamespace());
        } catch (IllegalArgumentException e) {
            throw new CosIdConfigurationException("cosid.namespace", properties.getNamespace(), e.getMessage(),
                    "Set cosid.namespace to 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-'.");
        }
        if (properties.getOwnerKey() != null) {
            try {
                dev.cosid.lease.Owner.of(properties.getOwnerKey());
            } catch (IllegalArgumentException e) {
                throw new CosIdConfigurationException("cosid.owner-key", properties.getOwnerKey(), e.getMessage(),
                        "Set cosid.owner-key to 1 to 255 characters, or remove it for host:port.");
            }
        }
        int bits = properties.getBits();
        if (bits < 0 || bits > 16) {
            throw new CosIdConfigurationException("cosid.bits", Integer.toString(bits),
                    "the bits must be 0 to 16 (2^bits slots)", "Set cosid.bits to 0..16; 10 (1024 slots) is the default.");
        }
        atLeast("cosid.ttl", properties.getTtl(), 3, "a lease must outlive its renewal at ttl/3");
        atLeast("cosid.tolerance", properties.getTolerance(), 0, "it cannot be negative");
        atLeast("cosid.max-wait", properties.getMaxWait(), 0, "it cannot be negative");
        atLeast("cosid.max-lead", properties.getMaxLead(), 0, "it cannot be negative");
        Duration lead = properties.getMaxLead();
        if (lead != null && lead.compareTo(Limits.MAX_LEAD_MAX) > 0) {
            throw new CosIdConfigurationException("cosid.max-lead", lead.toString(), "longer than the most, "
                    + Limits.MAX_LEAD_MAX.toMinutes() + " min: ids would carry timestamps that far ahead",
                    "Set cosid.max-lead to 1m or less; zero (the default) waits for the clock.");
        }
        if (properties.getAcquireTimeout() != null) {
            atLeast("cosid.acquire-timeout", properties.getAcquireTimeout(), 0, "it cannot be negative");
        }
        slot("cosid.preferred-slot", properties.getPreferredSlot(), bits);
        CosIdProperties.Static fixed = properties.getMachine().getStatic();
        slot("cosid.machine.static.slot", fixed.getSlot(), bits);
        atLeast("cosid.machine.static.ahead", fixed.getAhead(), 2, "a ceiling moves on when half of it is left");
        if (fixed.getSlot() != null && store != null) {
            throw new CosIdConfigurationException("cosid.store", store, "a static slot (cosid.machine.static.slot = "
                    + fixed.getSlot() + ") takes no store", "Remove cosid.store, or remove cosid.machine.static.slot.");
        }
        if (store == null && !staticSlot) {
            boolean leadership = environment.getProperty("cosid.leadership.enabled", Boolean.class, false);
            throw new CosIdConfigurationException("cosid.store", null, "the runtime needs a store, or a static slot",
                    storeAction() + (leadership ? " For leadership without ids, set cosid.enabled=false: "
                    + "cosid.leadership.enabled alone switches leadership on." : ""));
        }
        if (store != null && !sources.containsKey(store.trim().toLowerCase(Locale.ROOT))) {
            String word = store.trim().toLowerCase(Locale.ROOT);
            if (word.equals("datasource")) {
                throw new CosIdConfigurationException("cosid.store", store, "the application has no DataSource bean, "
                        + "or cosid-jdbc is missing", "Add spring-boot-starter-jdbc (or data-jpa) with a database, and "
                        + "dev.cosid:cosid-jdbc; or set cosid.store to a URL.");
            }
            if (word.equals("redis")) {
                throw new CosIdConfigurationException("cosid.store", store, "the application has no Lettuce "
                        + "connection factory (spring-boot-starter-data-redis), or cosid-redis is missing",
                        "Add spring-boot-starter-data-redis and dev.cosid:cosid-redis; or set cosid.store to a "
                        + "redis:// URL.");
            }
            requireProvider(store);
        }
    }

    private static void requireProvider(String store) {
        String lower = store.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("memory:")) {
            return;
        }
        List<String> prefixes = new ArrayList<>(List.of("memory:", "datasource", "redis"));
        for (LeaseStoreProvider provider : ServiceLoader.load(LeaseStoreProvider.class,
                CosIdRuntimeFactory.class.getClassLoader())) {
            for (String prefix : provider.prefixes()) {
                if (lower.startsWith(prefix)) {
                    return;
                }
                prefixes.add(prefix);
            }
        }
        String module = lower.startsWith("redis") ? "cosid-redis" : lower.startsWith("zookeeper") ? "cosid-zookeeper"
                : lower.startsWith("jdbc:") || lower.startsWith("sqlite:") ? "cosid-jdbc" : null;
        throw new CosIdConfigurationException("cosid.store", dev.cosid.lease.LeaseStores.redact(store),
                "no store on the class path takes this URL; known: " + String.join(", ", prefixes),
                module != null ? "Add the dependency dev.cosid:" + module + "." : storeAction());
    }

    private static String storeAction() {
        return "Set cosid.store to a store URL (sqlite:PATH, jdbc:postgresql://HOST/DB, redis://HOST:PORT, "
                + "zookeeper://HOST:PORT), to 'datasource' (the application's DataSource) or 'redis' (its Spring Data "
                + "Redis connection); or set cosid.machine.static.slot where the deployment guarantees a unique slot.";
    }

    private static void atLeast(String key, Duration value, long millis, String why) {
        if (value != null && value.toMillis() < millis) {
            throw new CosIdConfigurationException(key, value.toString(), "below the least of " + millis + " ms: " + why,
                    "Set " + key + " to " + millis + " ms or more (a duration such as 30s or 500ms).");
        }
    }

    private static void slot(String key, Integer slot, int bits) {
        if (slot != null && (slot < 0 || slot >= 1 << bits)) {
            throw new CosIdConfigurationException(key, slot.toString(), "the slot lies outside 0.." + ((1 << bits) - 1)
                    + " (cosid.bits = " + bits + ")", "Set " + key + " below 2^cosid.bits, or raise cosid.bits.");
        }
    }

    /**
     * Refuses a configured generator or segment name that breaks the rule of {@link Names}, with the rule's own
     * message, before the runtime starts.
     */
    private static void requireName(String key, String name) {
        try {
            Names.require(name);
        } catch (IllegalArgumentException e) {
            throw new CosIdConfigurationException(key, name, e.getMessage(), "Rename it to 1 to " + Names.MAX_LENGTH
                    + " characters of A-Z a-z 0-9 . _ - (not . or ..): the name is also a URL path segment and a store "
                    + "key. A name with dots goes in brackets, as in " + key + ".[a.b].", e);
        }
    }

    private Map<String, IdLayout> layouts() {
        Map<String, IdLayout> layouts = new LinkedHashMap<>();
        for (Map.Entry<String, CosIdProperties.Generator> entry : properties.getGenerators().entrySet()) {
            requireName("cosid.generators", entry.getKey());
            String prefix = "cosid.generators." + entry.getKey() + ".";
            CosIdProperties.Generator generator = entry.getValue();
            IdLayout preset;
            try {
                preset = IdLayout.preset(generator.getLayout());
            } catch (IllegalArgumentException e) {
                throw new CosIdConfigurationException(prefix + "layout", generator.getLayout(), e.getMessage(),
                        "Name a preset, and change single parts with epoch, unit, timestamp-bits, slot-bits, "
                        + "sequence-bits.");
            }
            try {
                layouts.put(entry.getKey(), new IdLayout(
                        generator.getEpoch() != null ? generator.getEpoch() : preset.epochMillis(),
                        generator.getUnit() != null ? generator.getUnit().toMillis() : preset.unitMillis(),
                        generator.getTimestampBits() != null ? generator.getTimestampBits() : preset.timestampBits(),
                        generator.getSlotBits() != null ? generator.getSlotBits() : preset.slotBits(),
                        generator.getSequenceBits() != null ? generator.getSequenceBits() : preset.sequenceBits()));
            } catch (IllegalArgumentException e) {
                throw new CosIdConfigurationException(prefix + "layout", describe(generator), e.getMessage(),
                        "The timestamp, slot and sequence bits of " + prefix.substring(0, prefix.length() - 1)
                        + " must add up to at most 63, and the unit must be 1 ms or more.", e);
            }
        }
        return layouts;
    }

    private static String describe(CosIdProperties.Generator generator) {
        if (generator.getEpoch() == null && generator.getUnit() == null && generator.getTimestampBits() == null
                && generator.getSlotBits() == null && generator.getSequenceBits() == null) {
            return generator.getLayout();
        }
        return generator.getLayout() + " with epoch " + generator.getEpoch() + ", unit " + generator.getUnit()
                + ", timestamp-bits " + generator.getTimestampBits() + ", slot-bits " + generator.getSlotBits()
                + ", sequence-bits " + generator.getSequenceBits();
    }

    /** Every {@code cosid.} key in the application's properties that this starter does not bind, as written. */
    private Map<String, String> otherKeys() {
        Map<String, String> other = new LinkedHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)) {
                continue;
            }
            for (String name : enumerable.getPropertyNames()) {
                if (!name.regionMatches(true, 0, "cosid.", 0, 6) || own(name) || other.containsKey(name)) {
                    continue;
                }
                other.put(name, environment.getProperty(name, ""));
            }
        }
        // the core's table speaks kebab case: pass each key in that form
        Map<String, String> normalized = new LinkedHashMap<>();
        other.forEach((key, value) -> normalized.putIfAbsent(key.toLowerCase(Locale.ROOT).equals(key) ? key
                : kebab(key), value));
        return normalized;
    }

    private static boolean own(String name) {
        String uniform = uniform(name);
        if (OWN.contains(uniform)) {
            return true;
        }
        if (uniform.startsWith("cosid.generators.")) {
            String field = uniform.substring(uniform.lastIndexOf('.') + 1);
            return GENERATOR_FIELDS.contains(field);
        }
        if (uniform.startsWith("cosid.mybatisplus.")) {
            return true; // bound by cosid-mybatis-plus
        }
        if (uniform.startsWith("cosid.leadership.")) {
            return true; // bound by CosIdLeadershipProperties, which refuses a key it does not know
        }
        if (uniform.startsWith("cosid.segments.")) {
            String field = uniform.substring(uniform.lastIndexOf('.') + 1);
            return SEGMENT_FIELDS.contains(field);
        }
        return false;
    }

    private static String uniform(String name) {
        StringBuilder out = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            if (c != '-' && c != '_') {
                out.append(Character.toLowerCase(c));
            }
        }
        return out.toString().replace("[", ".").replace("]", "");
    }

    private static String kebab(String key) {
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

    private static void applyLegacy(CosIdRuntime.Builder builder, Map<String, String> legacy) {
        for (Map.Entry<String, String> entry : legacy.entrySet()) {
            try {
                builder.configure(Map.of(entry.getKey(), entry.getValue()));
            } catch (IllegalArgumentException e) {
                String message = String.valueOf(e.getMessage());
                if (message.startsWith("unknown configuration key")) {
                    throw new CosIdConfigurationException(entry.getKey(), entry.getValue(),
                            "unknown key; this starter knows " + KNOWN, "Remove " + entry.getKey()
                            + " or correct its name.", e);
                }
                String prefix = entry.getKey() + " = '" + entry.getValue() + "'";
                String reason = message.startsWith(prefix) ? message.substring(prefix.length()).replaceFirst("^:? ?", "")
                        .replaceFirst("^is ", "") : message;
                throw new CosIdConfigurationException(entry.getKey(), entry.getValue(), reason,
                        "Remove " + entry.getKey() + "; docs/spring-boot.md lists what replaces each CosId 2.x key.", e);
            }
        }
    }

    private static void closeAll(List<AutoCloseable> closeables) {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.warn("cannot close {}", closeable, e);
            }
        }
    }

    private String defaultOwnerKey() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        Integer port = environment.getProperty("server.port", Integer.class);
        return host + ":" + (port != null && port > 0 ? port.toString() : Long.toString(ProcessHandle.current().pid()));
    }
}
