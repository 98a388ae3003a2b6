package dev.cosid.simulation;

import dev.cosid.IdLayout;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.SlotRecord;
import dev.cosid.testkit.IdChecker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * One seeded run: several nodes issue ids through the real runtime, keeper, generators and in-memory
 * store transitions, on a virtual timeline, while faults hit clocks, the store and the processes.
 * Every id goes to an {@link IdChecker}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Simulation.Report report = Simulation.run(42, Duration.ofSeconds(20));
 * assertEquals(List.of(), report.violations());
 * }</pre>
 */
public final class Simulation {

    /**
     * What a run adds to the plain one: a lead ({@code maxLead}) with bursts that use it up, a ticking
     * clock on every node (ticking every millisecond, lagging, or stepping, and stalled now and then),
     * or both. A plain run draws exactly what it drew before these existed.
     */
    public enum Variant {
        /** The runtime's defaults: no lead, the node's clock read directly. */
        PLAIN,
        /** A lead of 1 ms to 1 s, and bursts of thousands of ids that run ahead of the clock. */
        LEAD,
        /** Every node's runtime reads a ticking clock, which lags, steps and stalls. */
        TICKING,
        /** Both. */
        LEAD_TICKING;

        boolean lead() {
            return this == LEAD || this == LEAD_TICKING;
        }

        boolean ticking() {
            return this == TICKING || this == LEAD_TICKING;
        }
    }

    /**
     * The settings a seed draws.
     *
     * @param maxLead the generators' lead; zero waits for the clock
     * @param burst ids of one burst, 0 for none
     * @param burstEveryNanos how often a node bursts
     * @param tickNanos how often a node's ticking clock ticks; 0 for no ticking clock
     */
    record Settings(Duration ttl, Duration tolerance, int bits, IdLayout layout, long workIntervalNanos, int batch,
                    boolean coldStartGuard, boolean takeoverGuard, Duration maxLead, int burst, long burstEveryNanos,
                    long tickNanos) {
    }

    /**
     * What a run adds to the default faults and settings.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * Simulation.run(42, Duration.ofSeconds(20), Simulation.Options.DEFAULT.withSnapshotReverts().withGuards(true, true));
     * }</pre>
     *
     * @param snapshotReverts whether the store may step back to an older snapshot of all or some slot
     *     records, as a failover to an asynchronous replica does
     * @param coldStartGuard whether every runtime runs with the cold-start guard
     * @param takeoverGuard whether every runtime runs with the takeover guard
     * @param variant a lead, a ticking clock, both, or neither
     */
    public record Options(boolean snapshotReverts, boolean coldStartGuard, boolean takeoverGuard, Variant variant) {

        /** The faults and settings of the standing simulation test: no snapshot reverts, no guards, plain. */
        public static final Options DEFAULT = new Options(false, false, false, Variant.PLAIN);

        /** Returns these options with snapshot reverts among the faults. */
        public Options withSnapshotReverts() {
            return new Options(true, coldStartGuard, takeoverGuard, variant);
        }

        /** Returns these options with the two guards set. */
        public Options withGuards(boolean coldStart, boolean takeover) {
            return new Options(snapshotReverts, coldStart, takeover, variant);
        }

        /** Returns these options with a variant. */
        public Options withVariant(Variant chosen) {
            return new Options(snapshotReverts, coldStartGuard, takeoverGuard, chosen);
        }
    }

    /**
     * What one run produced.
     *
     * @param seed the seed
     * @param ids ids issued
     * @param refused calls that got no id (availability cost)
     * @param faults faults injected, by kind
     * @param longestUnavailableMillis the longest a running node went without an id
     * @param idsAhead ids whose unit started past their generator's clock reading (under a lead)
     * @param violations what the checker found, and ids further ahead than the lead; empty when all held
     */
    public record Report(long seed, long ids, long refused, Map<String, Integer> faults, long longestUnavailableMillis,
                         long idsAhead, List<String> violations) {
    }

    /** Counters every part of a run writes to. */
    static final class Counters {
        final IdChecker checker;
        /** Ids further ahead of their generator's clock than the lead allows. */
        final List<String> ahead = new ArrayList<>();
        long idsAhead;
        final Map<String, Integer> faults = new TreeMap<>();
        long issued;
        long refused;
        long longestUnavailableNanos;

        Counters(IdLayout layout) {
            this.checker = new IdChecker(layout);
        }

        void fault(String kind) {
            faults.merge(kind, 1, Integer::sum);
        }

        void unavailable(long nanos) {
            longestUnavailableNanos = Math.max(longestUnavailableNanos, nanos);
        }
    }

    private Simulation() {
    }

    /**
     * Runs one seed.
     *
     * @param seed the seed
     * @param duration the virtual time to simulate
     * @return the report
     */
    public static Report run(long seed, Duration duration) {
        return run(seed, duration, UnaryOperator.identity(), Options.DEFAULT);
    }

    /**
     * Runs one seed of a variant.
     *
     * @param seed the seed
     * @param duration the virtual time to simulate
     * @param variant lead, ticking clock, both, or neither
     * @return the report
     */
    public static Report run(long seed, Duration duration, Variant variant) {
        return run(seed, duration, UnaryOperator.identity(), Options.DEFAULT.withVariant(variant));
    }

    /**
     * Runs one seed with the store wrapped, so a test can plant a deliberately broken store.
     *
     * @param seed the seed
     * @param duration the virtual time to simulate
     * @param storeWrapper wraps the simulated store
     * @return the report
     */
    public static Report run(long seed, Duration duration, UnaryOperator<LeaseStore> storeWrapper) {
        return run(seed, duration, storeWrapper, Options.DEFAULT);
    }

    /**
     * Runs one seed with extra faults or guards.
     *
     * @param seed the seed
     * @param duration the virtual time to simulate
     * @param options the extra faults and the guards
     * @return the report
     */
    public static Report run(long seed, Duration duration, Options options) {
        return run(seed, duration, UnaryOperator.identity(), options);
    }

    private static Report run(long seed, Duration duration, UnaryOperator<LeaseStore> storeWrapper, Options options) {
        Variant variant = options.variant();
        Random random = new Random(seed);
        // what the variants add is drawn from a random of its own, so a plain seed replays as before
        Random extra = new Random(seed * 31 + variant.ordinal());
        VirtualTime time = new VirtualTime();
        long epoch = 1_800_000_000_000L + random.nextInt(1_000_000);
        IdLayout layout = random.nextInt(4) == 0 ? IdLayout.SECOND : IdLayout.MILLISECOND;
        Duration ttlSetting = Duration.ofMillis(1_500 + random.nextInt(4_000));
        Duration toleranceSetting = Duration.ofMillis(200 + random.nextInt(1_000));
        int bits = 1 + random.nextInt(2);
        long workInterval = Duration.ofMillis(2 + random.nextInt(8)).toNanos();
        int batch = 1 + random.nextInt(4);
        Duration maxLead = Duration.ZERO;
        int burst = 0;
        long burstEvery = 0;
        if (variant.lead()) {
            // units of 4,096 or 512 ids, so a burst of thousands runs ahead of the clock
            layout = extra.nextBoolean() ? IdLayout.MILLISECOND : IdLayout.SAFE_JS_MILLISECOND;
            maxLead = Duration.ofMillis(extra.nextInt(4) == 0 ? 1 + extra.nextInt(5) : 1 + extra.nextInt(1_000));
            burst = 2_000 + extra.nextInt(10_000);
            burstEvery = Duration.ofMillis(150 + extra.nextInt(850)).toNanos();
        }
        long tick = 0;
        if (variant.ticking()) {
            switch (extra.nextInt(3)) {
                case 0: tick = Duration.ofMillis(1).toNanos(); break; // on time
                case 1: tick = Duration.ofMillis(2 + extra.nextInt(19)).toNanos(); break; // lagging
                default: tick = Duration.ofMillis(50 + extra.nextInt(200)).toNanos(); break; // stepping
            }
        }
        Settings settings = new Settings(ttlSetting, toleranceSetting, bits, layout, workInterval, batch,
                options.coldStartGuard(), options.takeoverGuard(), maxLead, burst, burstEvery, tick);
        Counters counters = new Counters(layout);
        SimClock storeClock = new SimClock(time, epoch);
        InMemoryLeaseStore memory = new InMemoryLeaseStore(storeClock);
        SimStore simStore = new SimStore(memory, storeClock, random, counters);
        Replica replica = options.snapshotReverts() ? new Replica(memory, time, settings.ttl()) : null;
        LeaseStore store = storeWrapper.apply(simStore);

        List<SimNode> nodes = new ArrayList<>();
        int count = 2 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            SimNode node = new SimNode("node-" + i, time, new SimClock(time, epoch), store, settings, counters);
            nodes.add(node);
            time.after(Duration.ofMillis(random.nextInt(1_000)).toNanos(), node::start);
        }
        long end = duration.toNanos();
        long tolerance = settings.tolerance().toMillis();
        long ttl = settings.ttl().toMillis();
        for (long at = Duration.ofMillis(300).toNanos(); at < end; at += Duration.ofMillis(100 + random.nextInt(600)).toNanos()) {
            time.at(at, () -> {
                if (replica != null) {
                    replica.copy();
                    if (random.nextInt(6) == 0) {
                        replica.failover(random, counters);
                        return;
                    }
                }
                injectFault(random, nodes, simStore, storeClock, counters, ttl, tolerance, time, settings, store);
            });
        }
        if (variant.ticking()) {
            // a ticking thread that the host does not run for a while: the reading stands still
            for (long at = Duration.ofMillis(500).toNanos(); at < end; at += Duration.ofMillis(300 + extra.nextInt(1_500)).toNanos()) {
                SimNode node = nodes.get(extra.nextInt(nodes.size()));
                long stall = Duration.ofMillis(10 + extra.nextInt((int) (2 * ttl))).toNanos();
                time.at(at, () -> {
                    counters.fault("ticking clock stalled");
                    node.stallTick(stall);
                });
            }
        }
        time.runUntil(end);
        simStore.faults(0, 0, 0, 0);
        nodes.forEach(SimNode::shutdown);
        List<String> violations = new ArrayList<>(counters.checker.violations());
        violations.addAll(counters.ahead);
        return new Report(seed, counters.issued, counters.refused, counters.faults,
                counters.longestUnavailableNanos / 1_000_000, counters.idsAhead, violations);
    }

    /**
     * An asynchronous replica: copies of the slot records taken as the run goes, any of which a failover
     * may promote, stepping all or some records back to it.
     */
    private static final class Replica {
        private static final String NAMESPACE = "sim";
        private final InMemoryLeaseStore store;
        private final VirtualTime time;
        private final long keepNanos;
        private final ArrayDeque<Copy> copies = new ArrayDeque<>();

        private record Copy(long atNanos, List<SlotRecord> records) {
        }

        Replica(InMemoryLeaseStore store, VirtualTime time, Duration ttl) {
            this.store = store;
            this.time = time;
            this.keepNanos = 2 * ttl.toNanos();
        }

        void copy() {
            copies.addLast(new Copy(time.nowNanos(), store.records(NAMESPACE)));
            while (copies.peekFirst().atNanos() < time.nowNanos() - keepNanos) {
                copies.removeFirst();
            }
        }

        /** Promotes a copy up to two ttls old: every record steps back to it, or each with probability 1/2. */
        void failover(Random random, Counters counters) {
            List<Copy> kept = new ArrayList<>(copies);
            Copy promoted = kept.get(random.nextInt(kept.size()));
            if (random.nextBoolean()) {
                counters.fault("store reverted to an older snapshot, all records");
                store.revert(NAMESPACE, promoted.records(), slot -> true);
            } else {
                counters.fault("store reverted to an older snapshot, some records");
                long mask = random.nextLong();
                store.revert(NAMESPACE, promoted.records(), slot -> ((mask >>> (slot & 63)) & 1) == 1);
            }
        }
    }

    private static void injectFault(Random random, List<SimNode> nodes, SimStore store, SimClock storeClock,
                                    Counters counters, long ttl, long tolerance, VirtualTime time, Settings settings,
                                    LeaseStore wrapped) {
        SimNode node = nodes.get(random.nextInt(nodes.size()));
        long sign = random.nextBoolean() ? 1 : -1;
        switch (random.nextInt(11)) {
            case 0:
                counters.fault("node clock stepped beyond the tolerance");
                node.clock().step(sign * (tolerance + random.nextInt((int) (4 * tolerance + 1))));
                break;
            case 1:
                counters.fault("node clock drifting");
                node.clock().drift(sign * (1 + random.nextInt(100)));
                break;
            case 2:
                counters.fault("store clock jumped");
                storeClock.step(sign * (1 + random.nextInt((int) (2 * ttl))));
                break;
            case 3:
                counters.fault("store calls failing");
                store.faults(random.nextDouble() * 0.3, random.nextDouble() * 0.3, random.nextDouble() * 0.5,
                        ttl / 2);
                time.after(Duration.ofMillis(500 + random.nextInt(3_000)).toNanos(), () -> store.faults(0, 0, 0, 0));
                break;
            case 4:
                counters.fault("node paused past its expiry");
                node.pause(Duration.ofMillis(ttl + tolerance + random.nextInt((int) ttl)));
                break;
            case 5:
                counters.fault("node crashed without release");
                node.crash();
                time.after(Duration.ofMillis(random.nextInt((int) (2 * ttl))).toNanos(), node::start);
                break;
            case 6:
                counters.fault("node restarted, same key, new incarnation");
                node.crash();
                node.start();
                break;
            case 7:
                counters.fault("node shut down cleanly");
                node.shutdown();
                time.after(Duration.ofMillis(random.nextInt((int) ttl)).toNanos(), node::start);
                break;
            case 8:
                counters.fault("same owner key started twice");
                SimNode twin = new SimNode(node.key(), time, new SimClock(time, storeClock.nowMillis()
                        - storeClock.offsetMillis() - time.nowNanos() / 1_000_000), wrapped, settings, counters);
                twin.start();
                time.after(Duration.ofMillis(random.nextInt((int) (3 * ttl))).toNanos(), twin::shutdown);
                break;
            default:
                // most intervals pass without a fault
                break;
        }
    }
}
