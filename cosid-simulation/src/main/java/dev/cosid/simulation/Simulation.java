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

    /** The settings a seed draws, and the guards the options turn on. */
    record Settings(Duration ttl, Duration tolerance, int bits, IdLayout layout, long workIntervalNanos, int batch,
                    boolean coldStartGuard, boolean takeoverGuard) {
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
     */
    public record Options(boolean snapshotReverts, boolean coldStartGuard, boolean takeoverGuard) {

        /** The faults and settings of the standing simulation test: no snapshot reverts, no guards. */
        public static final Options DEFAULT = new Options(false, false, false);

        /** Returns these options with snapshot reverts among the faults. */
        public Options withSnapshotReverts() {
            return new Options(true, coldStartGuard, takeoverGuard);
        }

        /** Returns these options with the two guards set. */
        public Options withGuards(boolean coldStart, boolean takeover) {
            return new Options(snapshotReverts, coldStart, takeover);
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
     * @param violations what the checker found; empty when uniqueness held
     */
    public record Report(long seed, long ids, long refused, Map<String, Integer> faults, long longestUnavailableMillis,
                         List<String> violations) {
    }

    /** Counters every part of a run writes to. */
    static final class Counters {
        final IdChecker checker;
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
        return run(seed, duration, UnaryOperator.identity());
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
        Random random = new Random(seed);
        VirtualTime time = new VirtualTime();
        long epoch = 1_800_000_000_000L + random.nextInt(1_000_000);
        IdLayout layout = random.nextInt(4) == 0 ? IdLayout.SECOND : IdLayout.MILLISECOND;
        Settings settings = new Settings(Duration.ofMillis(1_500 + random.nextInt(4_000)),
                Duration.ofMillis(200 + random.nextInt(1_000)), 1 + random.nextInt(2), layout,
                Duration.ofMillis(2 + random.nextInt(8)).toNanos(), 1 + random.nextInt(4), options.coldStartGuard(),
                options.takeoverGuard());
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
        time.runUntil(end);
        simStore.faults(0, 0, 0, 0);
        nodes.forEach(SimNode::shutdown);
        return new Report(seed, counters.issued, counters.refused, counters.faults,
                counters.longestUnavailableNanos / 1_000_000, counters.checker.violations());
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
