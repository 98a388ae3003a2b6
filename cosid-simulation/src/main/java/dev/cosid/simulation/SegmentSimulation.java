package dev.cosid.simulation;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.SegmentId;
import dev.cosid.SegmentPolicy;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * One seeded run of segment ids: several nodes draw ids from one counter through the real runtime and
 * {@link SegmentId} chain, on a virtual timeline, while each node's connection to the in-memory store
 * loses calls before or after they apply, applies them late (the caller gave up already), applies
 * them twice, or hands a node the answer of its previous reservation again; nodes crash, restart,
 * pause and close cleanly. Every id goes to a checker: no id twice, each incarnation's ids increasing,
 * all positive.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SegmentSimulation.Report report = SegmentSimulation.run(42, Duration.ofSeconds(10));
 * assertEquals(List.of(), report.violations());
 * }</pre>
 */
public final class SegmentSimulation {

    private static final String NAMESPACE = "sim";
    private static final String COUNTER = "orders";

    /**
     * What one run produced.
     *
     * @param seed the seed
     * @param ids ids issued
     * @param refused calls that got no id
     * @param reservations ranges the store reserved
     * @param tailsReturned tails the store took back
     * @param faults faults injected, by kind
     * @param violations repeated, decreasing or non-positive ids; empty when all held
     */
    public record Report(long seed, long ids, long refused, long reservations, long tailsReturned,
                         Map<String, Integer> faults, List<String> violations) {
    }

    /** The state of one run, which every part writes to. */
    private static final class Run {
        final VirtualTime time = new VirtualTime();
        final Random random;
        final Map<String, Integer> faults = new TreeMap<>();
        final Map<Long, String> issuedBy = new HashMap<>();
        final List<String> violations = new ArrayList<>();
        long ids;
        long refused;
        long reservations;
        long tailsReturned;
        // the fault rates of every node's connection, changed by fault windows
        double lossBefore;
        double lossAfter;
        double late;
        double twice;
        double stale;

        Run(long seed) {
            this.random = new Random(seed);
        }

        void fault(String kind) {
            faults.merge(kind, 1, Integer::sum);
        }

        void violation(String text) {
            if (violations.size() < 20) {
                violations.add(text);
            }
        }
    }

    private SegmentSimulation() {
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
     * @param storeWrapper wraps the shared store, under every node's faulty connection
     * @return the report
     */
    public static Report run(long seed, Duration duration, UnaryOperator<LeaseStore> storeWrapper) {
        Run run = new Run(seed);
        Random random = run.random;
        long epoch = 1_800_000_000_000L + random.nextInt(1_000_000);
        SimClock storeClock = new SimClock(run.time, epoch);
        LeaseStore shared = storeWrapper.apply(new InMemoryLeaseStore(storeClock));
        long minStep = 1 + random.nextInt(20);
        SegmentPolicy policy = SegmentPolicy.of(minStep, minStep + random.nextInt(2_000),
                Duration.ofMillis(10 + random.nextInt(500)));
        long workNanos = Duration.ofMillis(1 + random.nextInt(10)).toNanos();
        int batch = 1 + random.nextInt(20);
        List<Node> nodes = new ArrayList<>();
        int count = 2 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            Node node = new Node(run, "node-" + i, new SimClock(run.time, epoch), shared, policy, workNanos, batch);
            nodes.add(node);
            run.time.after(Duration.ofMillis(random.nextInt(500)).toNanos(), node::start);
        }
        long end = duration.toNanos();
        for (long at = Duration.ofMillis(200).toNanos(); at < end;
             at += Duration.ofMillis(100 + random.nextInt(600)).toNanos()) {
            run.time.at(at, () -> injectFault(run, nodes));
        }
        run.time.runUntil(end);
        run.lossBefore = 0;
        run.lossAfter = 0;
        run.late = 0;
        run.twice = 0;
        run.stale = 0;
        nodes.forEach(Node::shutdown);
        // ids waiting in late calls reach the store after the end: drain them too
        run.time.runUntil(end + Duration.ofSeconds(10).toNanos());
        return new Report(seed, run.ids, run.refused, run.reservations, run.tailsReturned, run.faults,
                List.copyOf(run.violations));
    }

    private static void injectFault(Run run, List<Node> nodes) {
        Random random = run.random;
        Node node = nodes.get(random.nextInt(nodes.size()));
        switch (random.nextInt(8)) {
            case 0:
            case 1:
                run.fault("store calls failing");
                run.lossBefore = random.nextDouble() * 0.3;
                run.lossAfter = random.nextDouble() * 0.3;
                run.late = random.nextDouble() * 0.3;
                run.twice = random.nextDouble() * 0.3;
                run.stale = random.nextDouble() * 0.1;
                run.time.after(Duration.ofMillis(300 + random.nextInt(2_000)).toNanos(), () -> {
                    run.lossBefore = 0;
                    run.lossAfter = 0;
                    run.late = 0;
                    run.twice = 0;
                    run.stale = 0;
                });
                break;
            case 2:
                run.fault("node crashed");
                node.crash();
                run.time.after(Duration.ofMillis(random.nextInt(3_000)).toNanos(), node::start);
                break;
            case 3:
                run.fault("node restarted at once");
                node.crash();
                node.start();
                break;
            case 4:
            case 5:
                run.fault("node shut down cleanly");
                node.shutdown();
                run.time.after(Duration.ofMillis(random.nextInt(1_000)).toNanos(), node::start);
                break;
            case 6:
                run.fault("node paused");
                node.pause(Duration.ofMillis(50 + random.nextInt(3_000)));
                break;
            default:
                break;
        }
    }

    /** One service instance: a runtime and its segment generator, on a connection of its own. */
    private static final class Node {
        private final Run run;
        private final String key;
        private final SimClock clock;
        private final LeaseStore shared;
        private final SegmentPolicy policy;
        private final long workNanos;
        private final int batch;
        private int generation;
        private boolean running;
        private long pausedUntilNanos;
        private CosIdRuntime runtime;
        private SegmentId ids;
        private long lastId;

        Node(Run run, String key, SimClock clock, LeaseStore shared, SegmentPolicy policy, long workNanos, int batch) {
            this.run = run;
            this.key = key;
            this.clock = clock;
            this.shared = shared;
            this.policy = policy;
            this.workNanos = workNanos;
            this.batch = batch;
        }

        void start() {
            if (running) {
                return;
            }
            generation++;
            int mine = generation;
            lastId = 0;
            try {
                runtime = CosIdRuntime.builder()
                        .namespace(NAMESPACE)
                        .store(new Connection(run, shared)) // a new process opens a new connection
                        .ownerKey(key)
                        .bits(4)
                        .ttl(Duration.ofSeconds(2))
                        .maxWait(Duration.ZERO)
                        .acquireTimeout(Duration.ZERO)
                        .clock(clock)
                        .scheduler(new NodeScheduler(this, mine))
                        .segmentPolicy(policy)
                        .start();
                running = true;
                ids = runtime.segment(COUNTER);
                work(mine);
            } catch (SlotsExhaustedException | LeaseStoreException e) {
                if (running) {
                    shutdown();
                } else {
                    generation++;
                }
                run.refused++;
                run.time.after(Duration.ofMillis(200).toNanos(), this::start);
            }
        }

        private void work(int mine) {
            run.time.after(workNanos, () -> {
                if (generation != mine || !running) {
                    return;
                }
                if (run.time.nowNanos() >= pausedUntilNanos) {
                    issue(mine);
                }
                work(mine);
            });
        }

        private void issue(int mine) {
            int count = 1 + run.random.nextInt(batch);
            long[] batchIds;
            try {
                batchIds = count == 1 ? new long[] {ids.nextId()} : ids.nextIds(count);
            } catch (IdUnavailableException e) {
                run.refused++;
                if (e.reason() == IdUnavailableException.Reason.CLOSED) {
                    // the generator stopped for good (a misfit answer): the process restarts
                    run.fault("generator stopped, node restarted");
                    shutdown();
                    run.time.after(Duration.ofMillis(100).toNanos(), this::start);
                }
                return;
            }
            String who = key + " incarnation " + mine;
            for (long id : batchIds) {
                if (id < 1) {
                    run.violation("id " + id + " of " + who + " is not positive");
                }
                if (id <= lastId) {
                    run.violation("id " + id + " of " + who + " follows " + lastId);
                }
                lastId = id;
                String before = run.issuedBy.putIfAbsent(id, who);
                if (before != null) {
                    run.violation("id " + id + " issued twice: by " + before + " and by " + who);
                }
            }
            run.ids += batchIds.length;
        }

        void pause(Duration extent) {
            pausedUntilNanos = run.time.nowNanos() + extent.toNanos();
        }

        void crash() {
            generation++;
            running = false;
            runtime = null;
            ids = null;
        }

        void shutdown() {
            if (!running) {
                return;
            }
            generation++;
            running = false;
            try {
                runtime.close();
            } catch (RuntimeException e) {
                run.refused++;
            }
            runtime = null;
            ids = null;
        }
    }

    /** A node's scheduler on the virtual timeline: tasks run only while that incarnation lives and is not paused. */
    private static final class NodeScheduler implements Scheduler {
        private final Node node;
        private final int generation;
        private boolean closed;

        NodeScheduler(Node node, int generation) {
            this.node = node;
            this.generation = generation;
        }

        @Override
        public Cancellable schedule(Duration delay, Runnable task) {
            boolean[] cancelled = new boolean[1];
            node.run.time.after(delay.toNanos(), () -> deliver(task, cancelled));
            return () -> cancelled[0] = true;
        }

        private void deliver(Runnable task, boolean[] cancelled) {
            // a task of a runtime that is closing still runs, as a real thread would, until the scheduler closes
            if (closed || cancelled[0] || node.generation != generation) {
                return;
            }
            if (node.run.time.nowNanos() < node.pausedUntilNanos) {
                node.run.time.at(node.pausedUntilNanos, () -> deliver(task, cancelled));
                return;
            }
            task.run();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /**
     * One node's connection to the shared store. A call may be lost before it applies, applied with its
     * answer lost, or (segment calls) applied later while the caller has given up, applied twice, or
     * answered with this connection's previous reservation (a reply that arrived late on a pipelined
     * connection).
     */
    private static final class Connection implements LeaseStore {
        private final Run run;
        private final LeaseStore store;
        private SegmentRange previous;

        Connection(Run run, LeaseStore store) {
            this.run = run;
            this.store = store;
        }

        private <T> T call(String what, Supplier<T> operation) {
            if (run.random.nextDouble() < run.lossBefore) {
                run.fault("store call lost before applied");
                throw new LeaseStoreException("simulated: " + what + " lost before it reached the store");
            }
            T answer = operation.get();
            if (run.random.nextDouble() < run.lossAfter) {
                run.fault("store call applied, answer lost");
                throw new LeaseStoreException("simulated: the answer to " + what + " was lost");
            }
            return answer;
        }

        /** A segment call, with the faults only segment calls get on top of the common ones. */
        private <T> T segmentCall(String what, Supplier<T> operation) {
            if (run.random.nextDouble() < run.late) {
                run.fault("segment call applied late, caller gave up");
                run.time.after(Duration.ofMillis(1 + run.random.nextInt(3_000)).toNanos(), () -> {
                    try {
                        operation.get();
                    } catch (RuntimeException e) {
                        // what the late call found does not reach anyone
                    }
                });
                throw new LeaseStoreException("simulated: " + what + " timed out; it reaches the store later");
            }
            return call(what, () -> {
                T answer = operation.get();
                if (run.random.nextDouble() < run.twice) {
                    run.fault("segment call applied twice");
                    operation.get();
                }
                return answer;
            });
        }

        @Override
        public SegmentRange reserveSegment(String namespace, String name, long size) {
            SegmentRange answer = segmentCall("reserveSegment", () -> {
                SegmentRange range = store.reserveSegment(namespace, name, size);
                run.reservations++;
                return range;
            });
            if (previous != null && run.random.nextDouble() < run.stale) {
                run.fault("segment reservation answered with the previous answer");
                return previous;
            }
            previous = answer;
            return answer;
        }

        @Override
        public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
            return segmentCall("returnSegmentTail", () -> {
                boolean back = store.returnSegmentTail(range, lastIssued);
                if (back) {
                    run.tailsReturned++;
                }
                return back;
            });
        }

        @Override
        public long raiseSegment(String namespace, String name, long atLeast) {
            return call("raiseSegment", () -> store.raiseSegment(namespace, name, atLeast));
        }

        @Override
        public SortedMap<String, Long> segments(String namespace) {
            return call("segments", () -> store.segments(namespace));
        }

        @Override
        public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
            return call("register", () -> store.register(namespace, proposed));
        }

        @Override
        public Optional<NamespaceRecord> namespace(String namespace) {
            return call("namespace", () -> store.namespace(namespace));
        }

        @Override
        public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
            return call("registerLayout", () -> store.registerLayout(namespace, name, proposed));
        }

        @Override
        public SlotTable read(String namespace) {
            return call("read", () -> store.read(namespace));
        }

        @Override
        public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
            return call("acquire", () -> store.acquire(namespace, slot, owner, terms));
        }

        @Override
        public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
            return call("renew", () -> store.renew(lease, terms));
        }

        @Override
        public boolean release(SlotLease lease, long lastIssuedMillis) {
            return call("release", () -> store.release(lease, lastIssuedMillis));
        }

        @Override
        public String describe() {
            return "simulated connection to " + store.describe();
        }

        @Override
        public void close() {
            // the store outlives every node
        }
    }
}
