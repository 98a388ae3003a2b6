package dev.cosid.spring.boot;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code cosid.*} properties of a Spring Boot application: one runtime, its store or static slot,
 * its named generators and how ids appear in JSON.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid:
 *   namespace: orders
 *   store: datasource            # or a URL: sqlite:/var/lib/cosid/cosid.db, jdbc:postgresql://..., redis://...
 *   generators:
 *     order:
 *       layout: MILLISECOND
 *   segments:
 *     invoice:
 *       min-step: 100
 * }</pre>
 */
@ConfigurationProperties("cosid")
public class CosIdProperties {

    /** Whether to start a CosId runtime at all. */
    private boolean enabled = true;

    /** The namespace whose slots this application leases: 1 to 64 characters of [A-Za-z0-9._-]. */
    private String namespace = "cosid";

    /**
     * Where leases live: a store URL (sqlite:PATH, jdbc:postgresql:..., jdbc:mariadb:..., jdbc:h2:..., redis://...,
     * zookeeper://..., memory:), "datasource" for the application's DataSource, or "redis" for the
     * application's Spring Data Redis (Lettuce) connection. Not needed with cosid.machine.static.slot.
     */
    private String store;

    /** How long a lease lives past each renewal; renewed every ttl/3. A crashed instance's slot is free after ttl + tolerance. */
    private Duration ttl = Duration.ofSeconds(30);

    /** How far past the store's expiry a holder may still issue; recorded with the namespace, the same for every instance. */
    private Duration tolerance = Duration.ofSeconds(1);

    /** Slot bits of the namespace: 2^bits slots, 0 to 16; at most the slot bits of every generator's layout. */
    private int bits = 10;

    /**
     * The logical identity of this instance; a live lease of the same key is never taken over. Default: the
     * HOSTNAME environment variable (a Kubernetes pod name) or the host name, then ':' and server.port (or
     * the process id when the port is random).
     */
    private String ownerKey;

    /** A slot to prefer when it is free, such as a StatefulSet ordinal. */
    private Integer preferredSlot;

    /** Whether a slot record created where none existed starts a full ttl + tolerance after now; for a store that can lose its data. */
    private boolean coldStartGuard = false;

    /** Whether a slot taken from a holder that did not release it starts a full ttl + tolerance after now; for a store whose failover can step records back. */
    private boolean takeoverGuard = false;
    private boolean takeoverGuardSet;

    /** How long nextId() waits for a usable window before it throws IdUnavailableException. */
    private Duration maxWait = Duration.ofSeconds(1);

    /** How far ahead of the clock a used-up unit may move on (bounded by the lease's ceiling); zero waits for the clock. At most 1 min. */
    private Duration maxLead = Duration.ZERO;

    /** Whether generators read the wall clock from the JVM's shared ticking clock (refreshed once a millisecond) instead of the operating system. */
    private boolean tickingClock = false;

    /** How long start-up waits for a slot of an exhausted namespace; default the ttl. */
    private Duration acquireTimeout;

    /** Slots the deployment guarantees instead of a store. */
    private final Machine machine = new Machine();

    /** Named generators, each an id space with its layout; more can be created at run time by name. */
    private final Map<String, Generator> generators = new LinkedHashMap<>();

    /** Segment generators by name (dense increasing ids from a shared counter), each with how its ranges are sized. */
    private final Map<String, Segment> segments = new LinkedHashMap<>();

    /** How ids appear in JSON. */
    private final Jackson jackson = new Jackson();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public String getStore() {
        return store;
    }

    public void setStore(String store) {
        this.store = store;
    }

    public Duration getTtl() {
        return ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    public Duration getTolerance() {
        return tolerance;
    }

    public void setTolerance(Duration tolerance) {
        this.tolerance = tolerance;
    }

    public int getBits() {
        return bits;
    }

    public void setBits(int bits) {
        this.bits = bits;
    }

    public String getOwnerKey() {
        return ownerKey;
    }

    public void setOwnerKey(String ownerKey) {
        this.ownerKey = ownerKey;
    }

    public Integer getPreferredSlot() {
        return preferredSlot;
    }

    public void setPreferredSlot(Integer preferredSlot) {
        this.preferredSlot = preferredSlot;
    }

    public boolean isColdStartGuard() {
        return coldStartGuard;
    }

    public void setColdStartGuard(boolean coldStartGuard) {
        this.coldStartGuard = coldStartGuard;
    }

    public boolean isTakeoverGuard() {
        return takeoverGuard;
    }

    public void setTakeoverGuard(boolean takeoverGuard) {
        this.takeoverGuard = takeoverGuard;
        this.takeoverGuardSet = true;
    }

    /** Whether {@code cosid.takeover-guard} was set; unset, the runtime guards takeovers where the store needs it. */
    boolean isTakeoverGuardSet() {
        return takeoverGuardSet;
    }

    public Duration getMaxWait() {
        return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public Duration getMaxLead() {
        return maxLead;
    }

    public void setMaxLead(Duration maxLead) {
        this.maxLead = maxLead;
    }

    public boolean isTickingClock() {
        return tickingClock;
    }

    public void setTickingClock(boolean tickingClock) {
        this.tickingClock = tickingClock;
    }

    public Duration getAcquireTimeout() {
        return acquireTimeout;
    }

    public void setAcquireTimeout(Duration acquireTimeout) {
        this.acquireTimeout = acquireTimeout;
    }

    public Machine getMachine() {
        return machine;
    }

    public Map<String, Generator> getGenerators() {
        return generators;
    }

    public Map<String, Segment> getSegments() {
        return segments;
    }

    public Jackson getJackson() {
        return jackson;
    }

    /**
     * {@code cosid.machine.*}: slots the deployment guarantees.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * Integer slot = properties.getMachine().getStatic().getSlot();
     * }</pre>
     */
    public static class Machine {

        /** A slot that is unique by deployment (a fixed number per host, a StatefulSet ordinal): no store. */
        private final Static staticSlot = new Static();

        public Static getStatic() {
            return staticSlot;
        }
    }

    /**
     * {@code cosid.machine.static.*}, exactly as CosId's design writes them.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.machine.static.slot: ${POD_ORDINAL}
     * cosid.machine.static.state-file: /var/lib/cosid/state
     * }</pre>
     */
    public static class Static {

        /** The slot, below 2^bits; setting it skips the store. */
        private Integer slot;

        /**
         * Keeps the ceiling across restarts, written and fsynced before any id uses it. Without it a clock set
         * back across a restart can repeat ids.
         */
        private Path stateFile;

        /** How far ahead of the clock the ceiling is written; it moves on when less than half remains. */
        private Duration ahead = Duration.ofSeconds(10);

        /** The floor while the state file does not exist yet, as './cosid migrate' computes it (ISO-8601 instant). */
        private Instant notBefore;

        /** Accepts a not-before more than a day past the clock (no id is issued before it); off by default. */
        private boolean allowFutureNotBefore;

        public Integer getSlot() {
            return slot;
        }

        public void setSlot(Integer slot) {
            this.slot = slot;
        }

        public Path getStateFile() {
            return stateFile;
        }

        public void setStateFile(Path stateFile) {
            this.stateFile = stateFile;
        }

        public Duration getAhead() {
            return ahead;
        }

        public void setAhead(Duration ahead) {
            this.ahead = ahead;
        }

        public Instant getNotBefore() {
            return notBefore;
        }

        public void setNotBefore(Instant notBefore) {
            this.notBefore = notBefore;
        }

        public boolean isAllowFutureNotBefore() {
            return allowFutureNotBefore;
        }

        public void setAllowFutureNotBefore(boolean allowFutureNotBefore) {
            this.allowFutureNotBefore = allowFutureNotBefore;
        }
    }

    /**
     * {@code cosid.generators.NAME.*}: one id space and its layout.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.generators.batch.layout: SECOND
     * cosid.generators.batch.sequence-bits: 20
     * }</pre>
     */
    public static class Generator {

        /**
         * The layout preset: MILLISECOND (41 + 10 + 12 bits), SECOND, SAFE_JS_MILLISECOND or SAFE_JS_SECOND
         * (below 2^53); the fields below change single parts of it.
         */
        private String layout = "MILLISECOND";

        /** The layout's epoch in milliseconds since 1970; default the preset's, 2019-12-24T16:00:00Z. */
        private Long epoch;

        /** The length of one timestamp unit; default the preset's (1 ms or 1 s). */
        private Duration unit;

        /** Timestamp bits; default the preset's. */
        private Integer timestampBits;

        /** Slot bits, at least cosid.bits; default the preset's. */
        private Integer slotBits;

        /** Sequence bits; default the preset's. */
        private Integer sequenceBits;

        public String getLayout() {
            return layout;
        }

        public void setLayout(String layout) {
            this.layout = layout;
        }

        public Long getEpoch() {
            return epoch;
        }

        public void setEpoch(Long epoch) {
            this.epoch = epoch;
        }

        public Duration getUnit() {
            return unit;
        }

        public void setUnit(Duration unit) {
            this.unit = unit;
        }

        public Integer getTimestampBits() {
            return timestampBits;
        }

        public void setTimestampBits(Integer timestampBits) {
            this.timestampBits = timestampBits;
        }

        public Integer getSlotBits() {
            return slotBits;
        }

        public void setSlotBits(Integer slotBits) {
            this.slotBits = slotBits;
        }

        public Integer getSequenceBits() {
            return sequenceBits;
        }

        public void setSequenceBits(Integer sequenceBits) {
            this.sequenceBits = sequenceBits;
        }
    }

    /**
     * {@code cosid.segments.NAME.*}: one segment counter and how its ranges are sized; unset fields take
     * the defaults of {@code SegmentPolicy.DEFAULT}.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.segments.invoice.min-step: 100
     * cosid.segments.invoice.prefetch: 5s
     * }</pre>
     */
    public static class Segment {

        /** The fewest ids one reservation takes; default 1000. */
        private Long minStep;

        /** The most ids one reservation takes, as the rate grows; default 10,000,000. */
        private Long maxStep;

        /** How long of use at the observed rate one range holds; default 1s. */
        private Duration prefetch;

        public Long getMinStep() {
            return minStep;
        }

        public void setMinStep(Long minStep) {
            this.minStep = minStep;
        }

        public Long getMaxStep() {
            return maxStep;
        }

        public void setMaxStep(Long maxStep) {
            this.maxStep = maxStep;
        }

        public Duration getPrefetch() {
            return prefetch;
        }

        public void setPrefetch(Duration prefetch) {
            this.prefetch = prefetch;
        }
    }

    /**
     * {@code cosid.jackson.*}: ids in JSON.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.jackson.longs: decimal
     * }</pre>
     */
    public static class Jackson {

        /** Whether to register the CosId Jackson module, which honours @IdAsString on fields. */
        private boolean enabled = true;

        /** How every long and Long is written: as a number (unchanged), or as a decimal or radix-62 string. */
        private LongFormat longs = LongFormat.NUMBER;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public LongFormat getLongs() {
            return longs;
        }

        public void setLongs(LongFormat longs) {
            this.longs = longs;
        }
    }

    /**
     * How every long appears in JSON.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.jackson.longs: radix62    // 15L is written "0000000000F"
     * }</pre>
     */
    public enum LongFormat {
        /** A JSON number, as Jackson writes it: exact in Java, rounded above 2^53 by JavaScript. */
        NUMBER,
        /** A string of decimal digits. */
        DECIMAL,
        /** The 11-digit radix-62 string of IdStrings; only for non-negative values. */
        RADIX62
    }
}
