package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Names;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import dev.cosid.time.TickingClock;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service instance's id runtime: a lease on one slot of a namespace, kept by a
 * {@link LeaseKeeper}, shared by every generator the runtime creates.
 *
 * <p>Closing is ordered: every generator is closed and reports its exact last issued millisecond,
 * then the slot is released with the largest of them, then the stores and executors the runtime
 * created are closed. {@code close()} is idempotent.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (CosIdRuntime runtime = CosIdRuntime.builder()
 *         .namespace("orders")
 *         .store("sqlite:/var/lib/cosid/cosid.db")
 *         .start()) {
 *     SnowflakeId ids = runtime.snowflake("order");
 *     long id = ids.nextId();
 * }
 * }</pre>
 */
public final class CosIdRuntime implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CosIdRuntime.class);

    private enum State { RUNNING, CLOSED }

    private final String namespace;
    private final Owner owner;
    private final int bits;
    private final Clock clock;
    private final long maxWaitNanos;
    private final long maxLeadMillis;
    /** The clock generators read: the runtime's, or a ticking clock over it. */
    private final Clock generatorClock;
    /** A ticking clock this runtime started and stops at close; null when none or the shared one. */
    private final TickingClock ownedTickingClock;
    private final long acquireTimeoutNanos;
    private final SlotKeeper keeper;
    private final LeaseStore store;
    private final boolean ownsStore;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final CosIdListener listener;
    private final Map<String, LeasedSnowflake> generators = new LinkedHashMap<>();
    private final IdLayout defaultLayout;
    /** The layouts whose short runway was logged already: one warning each. */
    private final Set<IdLayout> runwayWarned = new HashSet<>();
    private final Map<String, SegmentChain> segments = new LinkedHashMap<>();
    private final SegmentPolicy segmentPolicy;
    private State state = State.RUNNING;

    private CosIdRuntime(Builder builder, LeaseStore store, Scheduler scheduler, SlotKeeper keeper) {
        this.namespace = builder.namespace;
        this.owner = builder.owner;
        this.bits = builder.bits;
        this.clock = builder.clock;
        this.maxWaitNanos = builder.maxWait.toNanos();
        this.maxLeadMillis = builder.maxLead.toMillis();
        if (!builder.tickingClock || builder.clock instanceof TickingClock) {
            this.generatorClock = builder.clock;
            this.ownedTickingClock = null;
        } else if (builder.clock == Clock.system()) {
            this.generatorClock = Clock.ticking();
            this.ownedTickingClock = null;
        } else {
            this.ownedTickingClock = TickingClock.start(builder.clock, Duration.ofMillis(1));
            this.generatorClock = ownedTickingClock;
        }
        this.acquireTimeoutNanos = (builder.acquireTimeout == null ? builder.ttl : builder.acquireTimeout).toNanos();
        this.keeper = keeper;
        this.store = store;
        this.ownsStore = store != null && builder.store == null;
        this.scheduler = scheduler;
        this.ownsScheduler = builder.scheduler == null;
        this.listener = new SafeListener(builder.listener);
        this.defaultLayout = builder.layout;
        warnOfShortRunway(defaultLayout);
        this.segmentPolicy = builder.segmentPolicy;
    }

    /** Returns a new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the generator of an id space with the runtime's default layout ({@link Builder#layout(IdLayout)},
     * {@link IdLayout#MILLISECOND} unless set).
     *
     * @param name the id space, like a table name; 1 to 128 characters of {@code A-Z a-z 0-9 . _ -} ({@link Names})
     * @return the same generator for the same name
     * @throws IllegalArgumentException when the name breaks the rule of {@link Names}
     */
    public SnowflakeId snowflake(String name) {
        return snowflake(name, defaultLayout);
    }

    /**
     * Returns the generator of an id space with the given layout.
     *
     * @param name the id space, like a table name; 1 to 128 characters of {@code A-Z a-z 0-9 . _ -} ({@link Names})
     * @param layout the layout; its slot bits must hold the namespace's {@code bits}
     * @return the same generator for the same name
     * @throws IllegalArgumentException when the name breaks the rule of {@link Names}, the layout's slot bits are
     *     fewer than {@code bits}, or the name is already used with another layout
     * @throws NamespaceMismatchException when the store (or the static slot's state file) records another
     *     layout for this id space
     * @throws LeaseStoreException when the store cannot be reached within the acquire timeout to record the
     *     layout of a name this runtime has not used yet
     */
    public SnowflakeId snowflake(String name, IdLayout layout) {
        Names.require(name);
        Objects.requireNonNull(layout, "layout");
        synchronized (this) {
            LeasedSnowflake existing = existing(name, layout);
            if (existing != null) {
                return existing;
            }
        }
        // ids of two layouts in one id space can be equal numbers: the first layout is kept for good. The
        // store call runs outside the runtime's lock, so a slow store never holds up status() or close()
        LayoutRecord proposed = new LayoutRecord(layout.epochMillis(), layout.unitMillis(), layout.timestampBits(),
                layout.slotBits(), layout.sequenceBits());
        LayoutRecord recorded = recordLayout(name, proposed);
        if (!recorded.equals(proposed)) {
            throw new NamespaceMismatchException("id space '" + name + "' of namespace '" + namespace + "' uses the layout "
                    + describe(recorded) + "; this generator asks for " + describe(proposed) + ". Ids of two layouts "
                    + "in one id space can be equal: keep its layout, or give the generator another name");
        }
        synchronized (this) {
            LeasedSnowflake existing = existing(name, layout);
            if (existing != null) {
                return existing;
            }
            LeasedSnowflake created = new LeasedSnowflake(name, layout, keeper, generatorClock, maxWaitNanos,
                    maxLeadMillis);
            generators.put(name, created);
            warnOfShortRunway(layout);
            listener.onGeneratorCreated(created);
            return created;
        }
    }

    /**
     * Logs one warning per layout that runs out within {@link Limits#RUNWAY_WARNING} of the clock: past its
     * end a generator refuses every id, and a layout cannot be changed under a name that issued ids.
     */
    private synchronized void warnOfShortRunway(IdLayout layout) {
        long now = clock.nowMillis();
        long left = layout.runwayMillis(now);
        if (left >= Limits.RUNWAY_WARNING.toMillis() || !runwayWarned.add(layout)) {
            return;
        }
        String when = left <= 0 ? "ran out " + Limits.roughly(Duration.ofMillis(-left)) + " ago"
                : "runs out in " + Limits.roughly(Duration.ofMillis(left));
        LOG.warn("layout {} of the runtime of namespace '{}' {}, at {}: its generators refuse every id from then on "
                + "(baidu/uid-generator's default layout ran out on 2024-11-20 and issued negative ids); move "
                + "to a layout with a later end (a later epoch or more timestamp bits) under a new generator name",
                layout.describe(), namespace, when, layout.runsOutAt());
    }

    /**
     * Returns when the first of the runtime's layouts runs out: the earliest of its generators', or the
     * default layout's while it has none.
     */
    private synchronized long layoutRunsOutAt() {
        long earliest = Long.MAX_VALUE;
        for (LeasedSnowflake generator : generators.values()) {
            earliest = Math.min(earliest, generator.layout().runsOutAt().toEpochMilli());
        }
        return generators.isEmpty() ? defaultLayout.runsOutAt().toEpochMilli() : earliest;
    }

    /** Returns the layout of {@link #snowflake(String)}: {@link Builder#layout(IdLayout)}, MILLISECOND by default. */
    public IdLayout defaultLayout() {
        return defaultLayout;
    }

    /**
     * Returns the segment generator of a counter with the runtime's {@link Builder#segmentPolicy(SegmentPolicy)}:
     * dense increasing ids from ranges of the store's counter of this name, reserved ahead of use.
     *
     * @param name the counter, like a table name; its counter lives in the namespace, apart from slots and layouts;
     *     1 to 128 characters of {@code A-Z a-z 0-9 . _ -} ({@link Names})
     * @return the same generator for the same name
     * @throws IllegalArgumentException when the name breaks the rule of {@link Names}
     * @throws IllegalStateException when the runtime is closed or has a static slot (no store)
     * @throws LeaseStoreException when the store cannot reserve the first range within the acquire timeout
     * @throws UnsupportedOperationException when the store keeps no segment counters
     */
    public SegmentId segment(String name) {
        return segment(name, segmentPolicy);
    }

    /**
     * Returns the segment generator of a counter with the given policy.
     *
     * @param name the counter
     * @param policy how its ranges are sized
     * @return the same generator for the same name
     * @throws IllegalArgumentException when the name breaks the rule of {@link Names}, or is already used with
     *     another policy
     */
    public SegmentId segment(String name, SegmentPolicy policy) {
        Names.require(name);
        Objects.requireNonNull(policy, "policy");
        synchronized (this) {
            SegmentChain existing = existingSegment(name, policy);
            if (existing != null) {
                return existing;
            }
        }
        // the first range is reserved here, outside the runtime's lock, so that store errors reach the caller
        SegmentRange first = retrying(() -> store.reserveSegment(namespace, name, policy.firstStep()));
        SegmentChain created = SegmentChain.start(namespace, name, store, clock, scheduler, listener, policy,
                maxWaitNanos, first);
        synchronized (this) {
            SegmentChain existing;
            try {
                existing = existingSegment(name, policy);
            } catch (RuntimeException e) {
                created.close();
                throw e;
            }
            if (existing != null) {
                created.close();
                return existing;
            }
            segments.put(name, created);
            return created;
        }
    }

    private SegmentChain existingSegment(String name, SegmentPolicy policy) {
        if (state != State.RUNNING) {
            throw new IllegalStateException("the runtime of namespace '" + namespace + "' is closed");
        }
        Names.require(name);
        if (store == null) {
            throw new IllegalStateException("segment ids need a store: the runtime of namespace '" + namespace
                    + "' has a static slot; start it with store(url) to use segment(\"" + name + "\")");
        }
        SegmentChain existing = segments.get(name);
        if (existing != null && !existing.policy().equals(policy)) {
            throw new IllegalArgumentException("segment '" + name + "' already exists with " + existing.policy()
                    + ", not " + policy);
        }
        return existing;
    }

    /** Returns the segment generators created so far, in the order they were created. */
    public synchronized List<SegmentId> segments() {
        return List.copyOf(segments.values());
    }

    /** Checks a request for a generator and returns the existing one, or null; call under the lock. */
    private LeasedSnowflake existing(String name, IdLayout layout) {
        if (state != State.RUNNING) {
            throw new IllegalStateException("the runtime of namespace '" + namespace + "' is closed");
        }
        Names.require(name);
        layout.requireSlotBits(bits);
        checkSlotFits(layout);
        LeasedSnowflake existing = generators.get(name);
        if (existing != null && !existing.layout().equals(layout)) {
            throw new IllegalArgumentException("generator '" + name + "' already exists with layout "
                    + describe(existing.layout()) + ", not " + describe(layout));
        }
        return existing;
    }

    /**
     * Records the layout of an id space, retrying a store that cannot be reached (back-off from 100 ms,
     * doubling, at most 1 s apart) until the acquire timeout has passed, as start-up does.
     */
    private LayoutRecord recordLayout(String name, LayoutRecord proposed) {
        return retrying(() -> keeper.registerLayout(name, proposed));
    }

    /** Runs a store call, retrying one that cannot be reached as {@link #recordLayout} describes. */
    private <T> T retrying(java.util.function.Supplier<T> call) {
        long started = clock.monotonicNanos();
        long backoff = 100_000_000L;
        for (;;) {
            try {
                return call.get();
            } catch (StoreDataLostException e) {
                throw e;
            } catch (LeaseStoreException e) {
                long remaining = acquireTimeoutNanos - (clock.monotonicNanos() - started);
                if (remaining <= 0) {
                    throw e;
                }
                clock.park(Math.min(remaining, backoff));
                backoff = Math.min(backoff * 2, 1_000_000_000L);
            }
        }
    }

    /** Returns the current lease, or the last one if it was lost or released. */
    public SlotLease lease() {
        return keeper.lease();
    }

    /**
     * Returns one reading of the window, the keeper's counters and the clock skew, for health checks,
     * meters and status pages; reads no store.
     *
     * @return the status now
     */
    public RuntimeStatus status() {
        RuntimeStatus status = keeper.status(owner, store == null).withLayoutRunsOutAt(layoutRunsOutAt());
        synchronized (this) {
            if (state == State.CLOSED && status.state() != RuntimeStatus.State.CLOSED) {
                return new RuntimeStatus(status.namespace(), status.owner(), status.staticSlot(),
                        RuntimeStatus.State.CLOSED, status.lease(), status.localNow(), status.clockSkewMillis(), -1,
                        status.lastAcquireMillis(), status.renewals(), status.renewalFailures(), status.leasesLost(),
                        status.reason(), status.layoutRunsOutAt());
            }
        }
        return status;
    }

    /** Returns the generators created so far, in the order they were created. */
    public synchronized List<SnowflakeId> generators() {
        return List.copyOf(generators.values());
    }

    /** Returns the number of slots of the namespace, {@code 2^bits}. */
    public int slotLimit() {
        return 1 << bits;
    }

    /**
     * Reads the namespace's slot table from the store; a static slot has no store, so its table holds
     * this runtime's own window only.
     *
     * @return every slot record with the store's clock
     * @throws dev.cosid.lease.LeaseStoreException when the store cannot be read
     */
    public SlotTable slotTable() {
        if (store == null) {
            SlotLease lease = keeper.lease();
            boolean held = keeper.binding().state == Binding.State.BOUND;
            SlotRecord own = new SlotRecord(lease.slot(), held ? owner : null, owner.key(), lease.fence(),
                    lease.expiresAt(), lease.floor(), lease.ceiling(), lease.ceiling());
            return new SlotTable(namespace, clock.nowMillis(), List.of(own));
        }
        return store.read(namespace);
    }

    /**
     * Reads every segment counter of the namespace from the store: what a status page shows.
     *
     * @return segment name to the last id reserved, by name
     * @throws IllegalStateException for a static slot, which has no store
     * @throws dev.cosid.lease.LeaseStoreException when the store cannot be read
     */
    public java.util.SortedMap<String, Long> segmentCounters() {
        if (store == null) {
            throw new IllegalStateException("the runtime of namespace '" + namespace + "' has a static slot and no "
                    + "store: it keeps no segment counters");
        }
        return store.segments(namespace);
    }

    /**
     * Returns how far ahead of the clock a generator's unit may start ({@link Builder#maxLead(Duration)});
     * zero when generators wait for the clock.
     */
    public Duration maxLead() {
        return Duration.ofMillis(maxLeadMillis);
    }

    /** Returns the namespace. */
    public String namespace() {
        return namespace;
    }

    /** Returns this runtime's owner: its key and incarnation. */
    public Owner owner() {
        return owner;
    }

    /** Closes the generators, releases the slot with the exact last issued millisecond, closes what it created. */
    @Override
    public void close() {
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        // segments first: their tails go back to the store while it is still open
        for (SegmentChain segment : segments.values()) {
            segment.close();
        }
        keeper.stop();
        long lastIssued = keeper.lease().floor();
        for (LeasedSnowflake generator : generators.values()) {
            lastIssued = Math.max(lastIssued, generator.close());
        }
        keeper.release(lastIssued);
        if (ownedTickingClock != null) {
            ownedTickingClock.close();
        }
        if (ownsScheduler) {
            scheduler.close();
        }
        if (ownsStore) {
            store.close();
        }
    }

    private static String describe(IdLayout layout) {
        return describe(new LayoutRecord(layout.epochMillis(), layout.unitMillis(), layout.timestampBits(),
                layout.slotBits(), layout.sequenceBits()));
    }

    private static String describe(LayoutRecord record) {
        for (String preset : List.of("MILLISECOND", "SECOND", "SAFE_JS_MILLISECOND", "SAFE_JS_SECOND")) {
            IdLayout layout = IdLayout.preset(preset);
            if (layout.epochMillis() == record.epochMillis() && layout.unitMillis() == record.unitMillis()
                    && layout.timestampBits() == record.timestampBits() && layout.slotBits() == record.slotBits()
                    && layout.sequenceBits() == record.sequenceBits()) {
                return preset + " (" + record + ")";
            }
        }
        return "(" + record + ")";
    }

    private void checkSlotFits(IdLayout layout) {
        int slot = keeper.lease().slot();
        if (slot >= layout.slotCount()) {
            throw new IllegalArgumentException("slot " + slot + " does not fit the layout's " + layout.slotBits()
                    + " slot bits");
        }
    }

    @Override
    public String toString() {
        return "CosIdRuntime[namespace " + namespace + ", owner " + owner + ", " + keeper.lease() + "]";
    }

    /**
     * Configures and starts a runtime; every setting is checked at {@link #start()}.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store(store).start();
     * }</pre>
     */
    public static final class Builder {
        private String namespace;
        private LeaseStore store;
        private String storeUrl;
        private String ownerKey;
        private Owner owner;
        private Duration ttl = Duration.ofSeconds(30);
        private Duration tolerance = Duration.ofSeconds(1);
        private int bits = 10;
        private Integer preferredSlot;
        private Duration maxWait = Duration.ofSeconds(1);
        private Duration maxLead = Duration.ZERO;
        private boolean tickingClock;
        private Duration acquireTimeout;
        private Clock clock = Clock.system();
        private Scheduler scheduler;
        private CosIdListener listener = CosIdListener.NOOP;
        private boolean coldStartGuard;
        /** Null until set: then on exactly where the store's failover may step records back. */
        private Boolean takeoverGuard;
        private Integer staticSlot;
        private Path stateFile;
        private Duration ahead = Duration.ofSeconds(10);
        private Instant notBefore;
        private boolean allowFutureNotBefore;
        private IdLayout layout = IdLayout.MILLISECOND;
        private SegmentPolicy segmentPolicy = SegmentPolicy.DEFAULT;

        private Builder() {
        }

        /**
         * Sets the default layout, that of {@link CosIdRuntime#snowflake(String)}; default
         * {@link IdLayout#MILLISECOND}. Its slot bits must hold {@link #bits(int)}. A layout that runs out
         * within a year of the clock is logged as a warning at start.
         *
         * @param layout the default layout
         * @return this builder
         */
        public Builder layout(IdLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
            return this;
        }

        /**
         * Sets the namespace: 1 to 64 characters of {@code [A-Za-z0-9._-]}.
         *
         * @param namespace the namespace
         * @return this builder
         */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /**
         * Uses a store the caller owns and closes.
         *
         * @param store the store
         * @return this builder
         */
        public Builder store(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
            this.storeUrl = null;
            return this;
        }

        /**
         * Opens a store by URL at start; the runtime closes it.
         *
         * @param url a store URL such as {@code sqlite:/var/lib/cosid/cosid.db}
         * @return this builder
         */
        public Builder store(String url) {
            this.storeUrl = Objects.requireNonNull(url, "url");
            this.store = null;
            return this;
        }

        /**
         * Sets the owner key; default {@code host:pid}.
         *
         * @param ownerKey the logical identity of this instance
         * @return this builder
         */
        public Builder ownerKey(String ownerKey) {
            this.ownerKey = ownerKey;
            return this;
        }

        /**
         * Sets how long a lease lives past each renewal; default 30 s, 3 ms to 24 h.
         *
         * @param ttl the lease time to live
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        /**
         * Sets how far past the store's expiry a holder may still issue; default 1 s, at most 1 h.
         *
         * @param tolerance the tolerance, recorded with the namespace
         * @return this builder
         */
        public Builder tolerance(Duration tolerance) {
            this.tolerance = tolerance;
            return this;
        }

        /**
         * Sets the number of slot bits of the namespace; default 10 (1024 slots), 0 to 16.
         *
         * @param bits the slot bits
         * @return this builder
         */
        public Builder bits(int bits) {
            this.bits = bits;
            return this;
        }

        /**
         * Prefers a slot, such as a StatefulSet ordinal, when it is free.
         *
         * @param slot the preferred slot
         * @return this builder
         */
        public Builder preferredSlot(int slot) {
            this.preferredSlot = slot;
            return this;
        }

        /**
         * Sets how long {@code nextId()} waits before throwing {@link IdUnavailableException}; default 1 s,
         * at most 24 h.
         *
         * @param maxWait the wait bound, zero or more
         * @return this builder
         */
        public Builder maxWait(Duration maxWait) {
            this.maxWait = maxWait;
            return this;
        }

        /**
         * Lets a generator whose unit is used up move on to the next unit before the clock reaches it,
         * while that unit starts at most this long after the clock's reading and ends at or before the
         * lease's ceiling: a burst borrows milliseconds of its own window instead of waiting for them.
         * Default zero (wait for the clock), at most {@link Limits#MAX_LEAD_MAX}; {@code cosid.max-lead}.
         * Ids then carry timestamps up to this far ahead of the clock, and a release may hand on a
         * millisecond that is still in the future (the next holder starts after it).
         *
         * @param maxLead how far ahead of the clock a unit may start
         * @return this builder
         */
        public Builder maxLead(Duration maxLead) {
            this.maxLead = maxLead;
            return this;
        }

        /**
         * Lets generators read the wall clock from a {@link TickingClock} (one volatile load per id)
         * instead of asking the operating system; default off, {@code cosid.ticking-clock}. With the
         * system clock this is the JVM's shared {@link Clock#ticking()}; with another clock, a ticking
         * clock of the runtime's own, stopped at close. Timestamps then lag the clock by about a
         * millisecond (more when the host starves the ticking thread); uniqueness does not depend on it.
         * The keeper keeps reading the clock itself.
         *
         * @param enabled whether generators read a ticking clock
         * @return this builder
         */
        public Builder tickingClock(boolean enabled) {
            this.tickingClock = enabled;
            return this;
        }

        /**
         * Sets how {@link CosIdRuntime#segment(String)} sizes its ranges; default {@link SegmentPolicy#DEFAULT}.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder segmentPolicy(SegmentPolicy policy) {
            this.segmentPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * Sets how long start-up retries an exhausted namespace; default the ttl, at most 366 days.
         *
         * @param acquireTimeout the bound, zero or more
         * @return this builder
         */
        public Builder acquireTimeout(Duration acquireTimeout) {
            this.acquireTimeout = acquireTimeout;
            return this;
        }

        /**
         * Sets the clock; default {@link Clock#system()}.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Runs the keeper on a given scheduler, which the caller owns; default one daemon thread.
         *
         * @param scheduler the scheduler
         * @return this builder
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Makes a slot record created where none existed start with {@code nextFloor = now + ttl +
         * tolerance}; default off. Turn it on for a store that can lose its data (a Redis without
         * fsync, a restored backup): a holder that still issues under a lost record is then never
         * overlapped.
         *
         * @param enabled whether to guard cold starts
         * @return this builder
         */
        public Builder coldStartGuard(boolean enabled) {
            this.coldStartGuard = enabled;
            return this;
        }

        /**
         * Makes an acquire that takes a slot from a holder that did not release it (an expired lease, not
         * a released or never-used record) start its window at {@code now + ttl + tolerance} or later.
         * By default it is on exactly for a store whose failover can step a record back (asynchronous
         * replication: Redis Cluster, Sentinel with {@code allowRepeatedIdsOnPartition=true&waitReplicas=0}):
         * the stepped-back record may have forgotten a ceiling up to that far ahead, and its holder may still
         * be issuing below it. The cost is one wait of ttl + tolerance before the first
         * id, on a taken-over slot only; released and never-used slots are chosen first.
         *
         * @param enabled whether to guard takeovers
         * @return this builder
         */
        public Builder takeoverGuard(boolean enabled) {
            this.takeoverGuard = enabled;
            return this;
        }

        /**
         * Uses a slot the deployment guarantees to be unique (a fixed number per host, a StatefulSet
         * ordinal) instead of a store: {@code cosid.machine.static.slot}.
         *
         * @param slot the slot, below {@code 2^bits}
         * @return this builder
         */
        public Builder staticSlot(int slot) {
            this.staticSlot = slot;
            return this;
        }

        /**
         * Keeps a static slot's ceiling in this file across restarts: {@code cosid.machine.static.state-file}.
         * Without it a clock set back across a restart can repeat ids; the runtime logs a warning.
         *
         * @param file the state file
         * @return this builder
         */
        public Builder stateFile(Path file) {
            this.stateFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * Sets how far ahead of the clock a static slot's ceiling is written: {@code cosid.machine.static.ahead},
         * default 10 s.
         *
         * @param ahead the extent, 2 ms to 24 h
         * @return this builder
         */
        public Builder ahead(Duration ahead) {
            this.ahead = ahead;
            return this;
        }

        /**
         * Sets a static slot's floor while its state file does not exist yet:
         * {@code cosid.machine.static.not-before}, written by {@code ./cosid migrate}.
         *
         * @param notBefore no id is issued at or before this instant; at most a day past the clock unless
         *     {@link #allowFutureNotBefore(boolean)}
         * @return this builder
         */
        public Builder notBefore(Instant notBefore) {
            this.notBefore = Objects.requireNonNull(notBefore, "notBefore");
            return this;
        }

        /**
         * Allows a not-before more than {@link Limits#NOT_BEFORE_AHEAD_MAX} past the clock; default off,
         * so that a typo such as year 2100 for 2026 does not stop a slot for decades.
         *
         * @param allowed whether a far-future not-before is meant
         * @return this builder
         */
        public Builder allowFutureNotBefore(boolean allowed) {
            this.allowFutureNotBefore = allowed;
            return this;
        }

        /**
         * Applies configuration keys: {@code cosid.namespace}, {@code cosid.store}, {@code cosid.owner-key},
         * {@code cosid.ttl}, {@code cosid.tolerance}, {@code cosid.bits}, {@code cosid.preferred-slot},
         * {@code cosid.max-wait}, {@code cosid.max-lead}, {@code cosid.ticking-clock}, {@code cosid.acquire-timeout},
         * {@code cosid.cold-start-guard}, {@code cosid.takeover-guard}, {@code cosid.machine.static.slot},
         * {@code cosid.machine.static.state-file}, {@code cosid.machine.static.ahead},
         * {@code cosid.machine.static.not-before}, {@code cosid.machine.static.allow-future-not-before}.
         * Durations are ISO-8601 ({@code PT10S}) or {@code 10s}, {@code 500ms}, {@code 2m}; instants are
         * ISO-8601. CosId 2.x keys with a counterpart here (such as {@code cosid.machine.guarder.safe-guard-duration}) are
         * applied with a warning that names the new key; other {@code cosid.} keys are refused, saying
         * what replaces them where something does.
         *
         * @param properties the configuration
         * @return this builder
         * @throws IllegalArgumentException naming the key of a value that does not parse
         */
        public Builder configure(Map<String, String> properties) {
            Configuration.apply(this, properties);
            return this;
        }

        /**
         * Sets the listener of lease events; default none.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(CosIdListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Checks the settings, joins the namespace and acquires a slot.
         *
         * @return the running runtime
         * @throws IllegalArgumentException for a bad setting, naming it, before any store call
         * @throws NamespaceMismatchException when the namespace records other bits or tolerance
         * @throws SlotsExhaustedException when no slot came free within the acquire timeout
         */
        public CosIdRuntime start() {
            Settings settings = check();
            owner = Owner.of(ownerKey == null ? defaultOwnerKey() : ownerKey);
            if (staticSlot != null) {
                return startStatic(settings);
            }

            LeaseStore opened = store != null ? store : LeaseStores.open(storeUrl);
            Scheduler keeperScheduler = scheduler != null ? scheduler : Scheduler.newSingleThread("cosid-keeper-" + namespace);
            try {
                boolean guardTakeovers = takeoverGuard != null ? takeoverGuard : opened.failoverMayStepBack();
                if (!guardTakeovers && opened.failoverMayStepBack()) {
                    LOG.warn("{} fails over to replicas it does not wait for: a failover may step slot records back "
                            + "and ids can repeat; turn on the takeover guard (takeoverGuard(true), "
                            + "cosid.takeover-guard=true, --takeover-guard) and the cold-start guard (docs/stores.md)",
                            opened.describe());
                }
                NamespaceRecord proposed = new NamespaceRecord(settings.limit, settings.toleranceMillis);
                NamespaceRecord stored = opened.register(namespace, proposed);
                if (!stored.equals(proposed)) {
                    throw new NamespaceMismatchException("namespace '" + namespace + "' holds " + stored
                            + "; this runtime asks for " + proposed + " (bits " + bits + ")");
                }
                LeaseKeeper keeper = new LeaseKeeper(opened, namespace, owner,
                        new LeaseTerms(settings.ttlMillis, settings.toleranceMillis, coldStartGuard, guardTakeovers), stored,
                        preferredSlot == null ? OptionalInt.empty() : OptionalInt.of(preferredSlot), clock,
                        keeperScheduler, new SafeListener(listener));
                keeper.start(settings.acquireTimeout);
                return new CosIdRuntime(this, opened, keeperScheduler, keeper);
            } catch (RuntimeException e) {
                if (scheduler == null) {
                    keeperScheduler.close();
                }
                if (store == null) {
                    opened.close();
                }
                throw e;
            }
        }

        /** Checks every setting against {@link Limits}, before any store or file is touched. */
        private Settings check() {
            Namespaces.require(namespace);
            if (staticSlot == null && (store == null && storeUrl == null)) {
                throw new IllegalArgumentException("no store: set store(LeaseStore) or store(url), or a static slot");
            }
            if (staticSlot != null && (store != null || storeUrl != null)) {
                throw new IllegalArgumentException("a static slot takes no store: set either staticSlot or store");
            }
            Settings settings = new Settings();
            settings.ttlMillis = Limits.check("ttl", ttl, Limits.TTL_MIN, Limits.TTL_MAX);
            settings.toleranceMillis = Limits.check("tolerance", tolerance, Duration.ZERO, Limits.TOLERANCE_MAX);
            if (bits < 0 || bits > Limits.BITS_MAX) {
                throw new IllegalArgumentException("bits " + bits + " are outside 0.." + Limits.BITS_MAX);
            }
            layout.requireSlotBits(bits);
            settings.limit = 1 << bits;
            if (preferredSlot != null) {
                Namespaces.requireSlot(preferredSlot, settings.limit);
            }
            Limits.check("maxWait", maxWait, Duration.ZERO, Limits.MAX_WAIT_MAX);
            Limits.check("maxLead", maxLead, Duration.ZERO, Limits.MAX_LEAD_MAX);
            settings.acquireTimeout = acquireTimeout == null ? ttl : acquireTimeout;
            Limits.check("acquireTimeout", settings.acquireTimeout, Duration.ZERO, Limits.ACQUIRE_TIMEOUT_MAX);
            if (staticSlot != null) {
                Namespaces.requireSlot(staticSlot, settings.limit);
                Limits.check("ahead", ahead, Limits.AHEAD_MIN, Limits.AHEAD_MAX);
                settings.notBeforeMillis = notBefore == null ? 0 : checkNotBefore(notBefore);
            } else if (notBefore != null || stateFile != null) {
                throw new IllegalArgumentException("notBefore and stateFile belong to a static slot: set staticSlot too");
            }
            return settings;
        }

        private long checkNotBefore(Instant value) {
            if (value.isBefore(Instant.EPOCH)) {
                throw new IllegalArgumentException("not-before " + value + " lies before 1970-01-01T00:00:00Z");
            }
            if (value.isAfter(Limits.NOT_BEFORE_MAX)) {
                throw new IllegalArgumentException("not-before " + value + " lies past " + Limits.NOT_BEFORE_MAX
                        + ", after the last id of every preset layout");
            }
            long now = clock.nowMillis();
            long millis = value.toEpochMilli();
            if (!allowFutureNotBefore && millis - now > Limits.NOT_BEFORE_AHEAD_MAX.toMillis()) {
                throw new IllegalArgumentException("not-before " + value + " lies " + Limits.text(Duration.ofMillis(
                        millis - now).truncatedTo(java.time.temporal.ChronoUnit.HOURS)) + " past the clock ("
                        + Instant.ofEpochMilli(now) + "), more than " + Limits.text(Limits.NOT_BEFORE_AHEAD_MAX)
                        + "; no id would be issued before it. If that is meant, allow it explicitly "
                        + "(allowFutureNotBefore(true), --allow-future-not-before)");
            }
            return millis;
        }

        private CosIdRuntime startStatic(Settings settings) {
            Scheduler keeperScheduler = scheduler != null ? scheduler
                    : Scheduler.newSingleThread("cosid-static-" + namespace);
            try {
                StaticSlotKeeper keeper = new StaticSlotKeeper(namespace, staticSlot, stateFile, ahead,
                        settings.notBeforeMillis, owner, clock, keeperScheduler, new SafeListener(listener));
                keeper.start(settings.acquireTimeout);
                return new CosIdRuntime(this, null, keeperScheduler, keeper);
            } catch (RuntimeException e) {
                if (scheduler == null) {
                    keeperScheduler.close();
                }
                throw e;
            }
        }

        /** The checked settings, in the units the keepers use. */
        private static final class Settings {
            long ttlMillis;
            long toleranceMillis;
            int limit;
            Duration acquireTimeout;
            long notBeforeMillis;
        }

        private static String defaultOwnerKey() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
            return host + ":" + ProcessHandle.current().pid();
        }
    }
}
