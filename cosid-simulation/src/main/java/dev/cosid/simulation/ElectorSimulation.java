package dev.cosid.simulation;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.Decision;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleState;
import dev.cosid.coordination.RoleStateBuilder;
import dev.cosid.coordination.Succession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * One seeded run of real {@link Elector}s on a virtual timeline. Two to four members campaign for one role on
 * the {@link InMemoryTransport}, or on a store's transport ({@link Options#withCluster}), each on a clock of its own within {@code ±maxOffset} of the timeline (so any
 * two differ by at most {@code 2 * maxOffset}, which the revoke margin exceeds), on a scheduler that honours
 * pauses and crashes, with every cluster call made on the scheduler's step ({@code callExecutor(Runnable::run)}).
 * Faults: members paused (some past their lease), crashed and restarted as a new elector with the same member
 * id, shut down cleanly and restarted, cut off from the cluster while they keep running, on a flaky link
 * (calls lost before they apply, or applied with the answer lost), clocks stepped within the bound, and
 * leaders resigning.
 *
 * <p>While it leads, a member does two kinds of work on virtual ticks: fenced writes to a
 * {@link FencedResource} with its token, and unfenced actions, recorded as intervals from elected to revoked.
 * The checker requires: (1) the fenced resource never accepted a write with a token older than one it accepted
 * before; (2) at most one member holds the coordinator's newest epoch at any instant; (3) no two members'
 * unfenced intervals overlap, unless the earlier leader was frozen at the instant its successor was elected
 * (counted apart as overlaps after a pause: only fenced work is safe there); (4) a leader that could not renew
 * stopped its unfenced work before the first instant any clock within the bound reads its lease's deadline,
 * unless it was frozen then; (5) the role never stays without a serving leader for longer than
 * {@code (members - 1) * stagger + retry + 2 * maxOffset} past the later of the lease's deadline and the
 * instant a member became healthy (running, not paused, its link whole), while that member stays healthy; and
 * a healthy leader that resigns never takes the role back before a standby that was due to challenge at once
 * and stayed healthy.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ElectorSimulation.Report report = ElectorSimulation.run(42, Duration.ofSeconds(60));
 * assertEquals(List.of(), report.violations());
 * }</pre>
 */
public final class ElectorSimulation {

    static final Role ROLE = Role.of("controller");
    private static final long EPOCH_MILLIS = 1_800_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final int MAX_TRACE = 2_000;

    /**
     * What a run changes from the drawn settings, for negative controls and replays.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * ElectorSimulation.run(7, Duration.ofSeconds(60), ElectorSimulation.Options.DEFAULT.withTrace());
     * }</pre>
     *
     * @param revokeMargin the electors' revoke margin, or null to draw one per seed
     * @param maxOffsetMillis how far each clock may be from the timeline, or -1 to draw it below half the margin
     * @param fenceCompares whether the fenced resource compares tokens (false: a broken resource)
     * @param trace whether the report carries the run's events
     * @param cluster opens the shared cluster of one run, which the run closes at its end
     * @param clusterName what the cluster is, for the report's settings
     */
    public record Options(Duration revokeMargin, long maxOffsetMillis, boolean fenceCompares, boolean trace,
                          Supplier<CoordinationTransport> cluster, String clusterName) {

        /** Drawn settings, a resource that compares tokens, no trace, the {@link InMemoryTransport}. */
        public static final Options DEFAULT = new Options(null, -1, true, false, InMemoryTransport::new,
                "the in-memory transport");

        /** Checks the cluster. */
        public Options {
            Objects.requireNonNull(cluster, "cluster");
            Objects.requireNonNull(clusterName, "clusterName");
        }

        /**
         * Returns these options with a fixed revoke margin and clock offset bound, which may break the rule
         * that the margin exceeds the skew.
         *
         * @param margin the revoke margin
         * @param maxOffset the bound of each clock's offset from the timeline
         * @return the options
         */
        public Options withMarginAndOffset(Duration margin, Duration maxOffset) {
            return new Options(margin, maxOffset.toMillis(), fenceCompares, trace, cluster, clusterName);
        }

        /** Returns these options with a fenced resource that accepts every write, whatever its token. */
        public Options withUncomparingFence() {
            return new Options(revokeMargin, maxOffsetMillis, false, trace, cluster, clusterName);
        }

        /** Returns these options with the run's events in the report. */
        public Options withTrace() {
            return new Options(revokeMargin, maxOffsetMillis, fenceCompares, true, cluster, clusterName);
        }

        /**
         * Returns these options with another cluster: a store's transport, whose mints, fences and records the
         * electors then go through. Each call of {@code opener} must open a fresh, empty cluster, and every call
         * on it must be deterministic: an embedded database answering on the calling thread, say.
         *
         * @param name what the cluster is, for the report's settings
         * @param opener opens the cluster of one run
         * @return the options
         */
        public Options withCluster(String name, Supplier<CoordinationTransport> opener) {
            return new Options(revokeMargin, maxOffsetMillis, fenceCompares, trace, opener, name);
        }
    }

    /**
     * What one run produced.
     *
     * @param seed the seed
     * @param settings the drawn settings, in one line
     * @param elections how many times a member was elected
     * @param takeovers elections of another member than the previous leader
     * @param failoversMeasured periods without a serving leader that ended in an election while some member
     *     was healthy from the bound's start on
     * @param worstFailoverPastBoundMillis the largest amount by which such a period outlasted its bound; 0 or
     *     less when all were in time, {@code Long.MIN_VALUE} when none was measured
     * @param fencedWrites writes the fenced resource accepted
     * @param fencedWritesRefused writes it refused, each from a deposed leader
     * @param unfencedActions unfenced actions done on ticks
     * @param overlapsAfterPause unfenced intervals that overlapped because the earlier leader was frozen
     * @param frozenPastDeadline leaders that were still frozen when their lease's deadline came
     * @param faults faults injected and call failures, by kind
     * @param violations what the checker found; must be empty
     * @param trace the run's events, when asked for
     */
    public record Report(long seed, String settings, int elections, int takeovers, int failoversMeasured,
                         long worstFailoverPastBoundMillis, long fencedWrites, long fencedWritesRefused,
                         long unfencedActions, int overlapsAfterPause, int frozenPastDeadline,
                         Map<String, Integer> faults, List<String> violations, List<String> trace) {
    }

    /** The drawn settings of one seed. */
    private record Settings(int members, LeaseConfig config, long retryMillis, long marginMillis,
                            long maxOffsetMillis, long workMillis, long faultEveryMillis) {

        /** The longest a healthy member may leave the role without a leader past the lease: the failover bound. */
        long boundMillis() {
            return (members - 1) * config.challengeStagger().toMillis() + retryMillis + 2 * maxOffsetMillis;
        }

        @Override
        public String toString() {
            return members + " members, lease " + config.duration().toMillis() + " ms renewed every "
                    + config.renewInterval().toMillis() + " ms, stagger " + config.challengeStagger().toMillis()
                    + " ms, retry " + retryMillis + " ms, revoke margin " + marginMillis + " ms, clocks within +-"
                    + maxOffsetMillis + " ms, work every " + workMillis + " ms";
        }
    }

    /** One leadership's unfenced work, from elected to revoked (or crash), by virtual time and event order. */
    private static final class Interval {
        final Member member;
        final FencingToken token;
        final long startNanos;
        final long startOrder;
        long endNanos = Long.MAX_VALUE;
        long endOrder = Long.MAX_VALUE;

        Interval(Member member, FencingToken token, long startNanos, long startOrder) {
            this.member = member;
            this.token = token;
            this.startNanos = startNanos;
            this.startOrder = startOrder;
        }
    }

    /**
     * A leader that resigned, and the standbys that were due to challenge the moment its lease was gone: one of
     * them, while healthy, must take the role before the resigner takes it back.
     */
    private record Resignation(Member member, long atNanos, long order, List<Member> due) {
    }

    /** A stretch of time without a serving leader, and the lease versions seen during it. */
    private static final class Gap {
        final long startNanos;
        /** The latest instant a lease seen during the gap kept standbys waiting. */
        long blockedUntilNanos;
        long endNanos = -1;

        Gap(long startNanos) {
            this.startNanos = startNanos;
            this.blockedUntilNanos = startNanos;
        }
    }

    private final long seed;
    private final Options options;
    private final Random random;
    private final VirtualTime time = new VirtualTime();
    private final CoordinationTransport cluster;
    private final Recording recording = new Recording();
    private final Settings settings;
    private final FencedResource resource;
    private final List<Member> members = new ArrayList<>();
    private final Map<String, Integer> faults = new TreeMap<>();
    private final long[] callFailures = new long[3];
    private final List<String> violations = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();
    private final List<Interval> intervals = new ArrayList<>();
    private final List<Gap> gaps = new ArrayList<>();
    private final List<Resignation> resignations = new ArrayList<>();
    private long order;
    private int elections;
    private int takeovers;
    private MemberId lastElected;
    private long unfencedActions;
    private int frozenPastDeadline;
    private Gap openGap;
    private boolean firstElection;
    /** The cluster's lease as last written or cleared. */
    private Lease clusterLease;
    private long clusterLeaseSinceNanos;

    private ElectorSimulation(long seed, Options options) {
        this.seed = seed;
        this.options = options;
        this.random = new Random(seed);
        int count = 2 + random.nextInt(3);
        long duration = new long[] {2_000, 3_000, 6_000}[random.nextInt(3)];
        long stagger = new long[] {250, 500, 1_000}[random.nextInt(3)];
        LeaseConfig config = LeaseConfig.of(Duration.ofMillis(duration), Duration.ofMillis(duration / 3),
                Duration.ofMillis(stagger));
        long retry = 50 + random.nextInt(200);
        long room = duration - duration / 3;
        long margin = random.nextBoolean() ? Elector.defaultRevokeMargin(config).toMillis()
                : 50 + random.nextInt((int) (room / 2 - 50));
        long halfMargin = (margin - 1) / 2;
        long maxOffset = random.nextBoolean() ? halfMargin : random.nextInt((int) halfMargin + 1);
        if (options.revokeMargin() != null) {
            margin = options.revokeMargin().toMillis();
        }
        if (options.maxOffsetMillis() >= 0) {
            maxOffset = options.maxOffsetMillis();
        }
        this.settings = new Settings(count, config, retry, margin, maxOffset, 20 + random.nextInt(180),
                1_000 + random.nextInt(3_000));
        this.resource = new FencedResource(options.fenceCompares());
        this.cluster = options.cluster().get();
    }

    /**
     * Runs one seed with drawn settings.
     *
     * @param seed the seed
     * @param duration virtual time to simulate
     * @return the report
     */
    public static Report run(long seed, Duration duration) {
        return run(seed, duration, Options.DEFAULT);
    }

    /**
     * Runs one seed.
     *
     * @param seed the seed
     * @param duration virtual time to simulate
     * @param options what to change from the drawn settings
     * @return the report
     */
    public static Report run(long seed, Duration duration, Options options) {
        ElectorSimulation simulation = new ElectorSimulation(seed, options);
        try {
            return simulation.simulate(duration.toNanos());
        } finally {
            simulation.cluster.close();
        }
    }

    private Report simulate(long endNanos) {
        note("settings: " + settings + ", on " + options.clusterName());
        for (int i = 0; i < settings.members(); i++) {
            SimClock clock = new SimClock(time, EPOCH_MILLIS);
            Member member = new Member(MemberId.of("m" + i), clock);
            clock.step(drawOffset());
            members.add(member);
            member.unhealthy.add(new long[] {0, 0});
            long startAt = random.nextInt(500) * MS;
            member.unhealthy.get(0)[1] = startAt;
            time.at(startAt, member::start);
        }
        faults.put("members", settings.members());
        scheduleFault(settings.faultEveryMillis() * MS);
        time.afterEach(this::observe);
        openGap = new Gap(0);
        time.runUntil(endNanos);
        if (openGap != null) {
            closeGap(endNanos, false);
        }
        checkFencedWrites();
        int overlapsAfterPause = checkOverlaps();
        long[] failover = checkLiveness(endNanos);
        checkResignations();
        if (!firstElection) {
            violations.add("nobody was ever elected");
        }
        faults.put("calls lost before they applied", (int) callFailures[SimLink.LOST_BEFORE]);
        faults.put("calls applied with the answer lost", (int) callFailures[SimLink.ANSWER_LOST]);
        faults.put("calls refused while cut off", (int) callFailures[SimLink.REFUSED_CUT_OFF]);
        return new Report(seed, settings + ", on " + options.clusterName(), elections, takeovers, (int) failover[0], failover[1],
                resource.accepted().size(), resource.refused(), unfencedActions, overlapsAfterPause,
                frozenPastDeadline, faults, violations, trace);
    }

    private long drawOffset() {
        long bound = settings.maxOffsetMillis();
        if (bound == 0) {
            return 0;
        }
        // half the clocks sit at the bound, where the margin is tested hardest
        return random.nextBoolean() ? (random.nextBoolean() ? bound : -bound)
                : random.nextInt((int) (2 * bound + 1)) - bound;
    }

    private void note(String line) {
        if (options.trace() && trace.size() < MAX_TRACE) {
            trace.add(String.format("%9.3f s  %s", time.nowNanos() / 1e9, line));
        }
    }

    private void violation(String what) {
        String line = "at " + time.nowNanos() / MS + " ms: " + what;
        violations.add(line);
        note("VIOLATION " + line);
    }

    // ---------------------------------------------------------------- faults

    private void scheduleFault(long afterNanos) {
        time.after(afterNanos, () -> {
            fault();
            scheduleFault((settings.faultEveryMillis() / 2 + random.nextInt((int) settings.faultEveryMillis())) * MS);
        });
    }

    private Optional<Member> leader() {
        return members.stream().filter(m -> m.running && m.tenure != null && m.tenure.leadership != null)
                .findFirst();
    }

    private void fault() {
        Optional<Member> leader = leader();
        Member victim = leader.isPresent() && random.nextInt(5) < 3 ? leader.get()
                : members.get(random.nextInt(members.size()));
        long duration = settings.config().duration().toMillis();
        long now = time.nowNanos();
        int kind = random.nextInt(7);
        if (!victim.running) {
            return; // crashed or shut down: it restarts on its own
        }
        switch (kind) {
            case 0 -> {
                boolean past = random.nextBoolean();
                long pause = past ? duration + random.nextInt((int) duration) : 1 + random.nextInt((int) duration / 2);
                count(past ? "pauses past the lease" : "short pauses");
                note(victim.id + " paused for " + pause + " ms");
                victim.pausedUntilNanos = Math.max(victim.pausedUntilNanos, now + pause * MS);
                victim.pauses.add(new long[] {now, victim.pausedUntilNanos});
                victim.unhealthy.add(new long[] {now, victim.pausedUntilNanos});
            }
            case 1 -> {
                long down = 200 + random.nextInt((int) (2 * duration));
                count("crashes, restarted with the same member id");
                note(victim.id + " crashed; restarts in " + down + " ms");
                victim.crash();
                victim.unhealthy.add(new long[] {now, now + down * MS});
                time.after(down * MS, victim::start);
            }
            case 2 -> {
                long cut = 300 + random.nextInt((int) (2 * duration));
                count("cut off from the cluster while running");
                note(victim.id + " cut off for " + cut + " ms");
                victim.cutUntilNanos = Math.max(victim.cutUntilNanos, now + cut * MS);
                victim.link.cutOff(true);
                victim.unhealthy.add(new long[] {now, victim.cutUntilNanos});
                time.at(victim.cutUntilNanos, () -> {
                    if (time.nowNanos() >= victim.cutUntilNanos) {
                        victim.link.cutOff(false);
                        note(victim.id + " reaches the cluster again");
                    }
                });
            }
            case 3 -> {
                long flaky = 500 + random.nextInt(3_000);
                count("flaky links");
                note(victim.id + " on a flaky link for " + flaky + " ms");
                victim.flakyUntilNanos = Math.max(victim.flakyUntilNanos, now + flaky * MS);
                victim.link.flaky(0.15, 0.15);
                victim.unhealthy.add(new long[] {now, victim.flakyUntilNanos});
                time.at(victim.flakyUntilNanos, () -> {
                    if (time.nowNanos() >= victim.flakyUntilNanos) {
                        victim.link.flaky(0, 0);
                    }
                });
            }
            case 4 -> {
                long offset = drawOffset();
                count("clock steps within the bound");
                note(victim.id + "'s clock stepped to " + offset + " ms off");
                victim.clock.step(offset - victim.clock.offsetMillis());
            }
            case 5 -> {
                if (victim.tenure.leadership == null || victim.paused()) {
                    return;
                }
                count("resignations");
                note(victim.id + " resigns");
                resignations.add(new Resignation(victim, now, ++order, dueWithoutLease(victim)));
                victim.elector.resign();
            }
            default -> {
                if (victim.paused()) {
                    return;
                }
                long down = 200 + random.nextInt((int) duration);
                count("clean shutdowns, restarted");
                note(victim.id + " shuts down; restarts in " + down + " ms");
                victim.shutDown();
                victim.unhealthy.add(new long[] {now, now + down * MS});
                time.after(down * MS, victim::start);
            }
        }
    }

    private void count(String kind) {
        faults.merge(kind, 1, Integer::sum);
    }

    // ---------------------------------------------------------------- members

    /** One member: its clock, its link to the cluster, and its current incarnation's elector. */
    private final class Member implements SimProcess {
        final MemberId id;
        final SimClock clock;
        final SimLink link;
        final List<long[]> pauses = new ArrayList<>();
        /** Instants at which the member could not be counted on: not started, crashed, paused, cut off, flaky. */
        final List<long[]> unhealthy = new ArrayList<>();
        int generation;
        /** How many times this member started: its incarnation, as the trace names it. */
        int starts;
        boolean running;
        long pausedUntilNanos;
        long cutUntilNanos;
        long flakyUntilNanos;
        Elector elector;
        Tenure tenure;

        Member(MemberId id, SimClock clock) {
            this.id = id;
            this.clock = clock;
            this.link = new SimLink(recording, random, callFailures);
        }

        @Override
        public int generation() {
            return generation;
        }

        @Override
        public boolean running() {
            return running;
        }

        @Override
        public boolean paused() {
            return time.nowNanos() < pausedUntilNanos;
        }

        @Override
        public long pausedUntilNanos() {
            return pausedUntilNanos;
        }

        boolean pausedAt(long atNanos) {
            return pauses.stream().anyMatch(p -> p[0] <= atNanos && atNanos <= p[1]);
        }

        /** Starts a new incarnation: a new elector with the same member id. */
        void start() {
            generation++;
            starts++;
            running = true;
            pausedUntilNanos = 0;
            int mine = generation;
            SimScheduler scheduler = new SimScheduler(time, this, mine);
            tenure = new Tenure(this, mine);
            note(this + " starts");
            elector = Elector.builder(link, ROLE, id)
                    .config(settings.config())
                    .clock(clock)
                    .scheduler(scheduler)
                    .callExecutor(Runnable::run)
                    .retryInterval(Duration.ofMillis(settings.retryMillis()))
                    .revokeMargin(Duration.ofMillis(settings.marginMillis()))
                    .listener(tenure)
                    .start();
            tick(scheduler, tenure);
        }

        /** The leader's work, on virtual ticks of this incarnation's scheduler: it stops with a pause or a crash. */
        private void tick(SimScheduler scheduler, Tenure mine) {
            scheduler.schedule(Duration.ofMillis(settings.workMillis()), () -> {
                if (mine.leadership != null) {
                    work(mine);
                }
                tick(scheduler, mine);
            });
        }

        /** Dies without a word: no resignation, no revocation; its timers never run again. */
        void crash() {
            if (tenure.leadership != null) {
                tenure.end();
            }
            generation++;
            running = false;
            elector = null;
        }

        /** Closes the elector: it resigns and leaves the roster. */
        void shutDown() {
            elector.close();
            generation++;
            running = false;
            elector = null;
        }

        @Override
        public String toString() {
            return id + "#" + starts;
        }
    }

    /** What one incarnation's listener saw: its leadership, the lease it knows, its open interval. */
    private final class Tenure implements ElectionListener {
        final Member member;
        final int incarnation;
        Leadership leadership;
        Lease lease;
        Interval interval;

        Tenure(Member member, int incarnation) {
            this.member = member;
            this.incarnation = incarnation;
        }

        @Override
        public void elected(Leadership won) {
            long now = time.nowNanos();
            if (leadership != null) {
                violation(member + " was elected with " + won.token() + " while it still led with "
                        + leadership.token());
                end();
            }
            leadership = won;
            interval = new Interval(member, won.token(), now, ++order);
            intervals.add(interval);
            elections++;
            firstElection = true;
            if (lastElected != null && !lastElected.equals(member.id)) {
                takeovers++;
            }
            lastElected = member.id;
            note(member + " elected with " + won.token() + ", lease until " + (won.lease().deadline() - EPOCH_MILLIS)
                    + " ms by its clock");
            leaseKnown(won.lease());
            work(this);
        }

        @Override
        public void renewed(Leadership held, Lease renewed) {
            if (held != leadership) {
                violation(member + " heard of a renewal of a leadership it does not hold: " + held);
                return;
            }
            leaseKnown(renewed);
        }

        @Override
        public void revoked(Revocation revocation) {
            if (revocation.leadership() != leadership) {
                violation(member + " heard of the end of a leadership it does not hold: " + revocation);
                return;
            }
            note(member + " revoked: " + revocation);
            end();
        }

        void end() {
            interval.endNanos = time.nowNanos();
            interval.endOrder = ++order;
            leadership = null;
            lease = null;
            interval = null;
        }

        /**
         * Notes the lease this incarnation last wrote, and checks at the first instant any clock within the
         * bound reads its deadline that the work has stopped unless the lease was renewed meanwhile.
         */
        private void leaseKnown(Lease known) {
            lease = known;
            long checkAt = (known.deadline() - EPOCH_MILLIS - settings.maxOffsetMillis()) * MS;
            Leadership held = leadership;
            time.at(checkAt, () -> {
                if (leadership != held || lease != known || member.generation != incarnation || !member.running) {
                    return;
                }
                if (member.pausedAt(time.nowNanos())) {
                    frozenPastDeadline++;
                    note(member + " is frozen past its lease's deadline, still leading");
                } else {
                    violation(member + " still leads with " + held.token() + " and runs its unfenced work at the "
                            + "first instant a clock within +-" + settings.maxOffsetMillis() + " ms reads its lease's "
                            + "deadline " + (known.deadline() - EPOCH_MILLIS) + " ms; its revoke margin is "
                            + settings.marginMillis() + " ms");
                }
            });
        }
    }

    /** One tick of a leader's work: a fenced write with its token, and an unfenced action. */
    private void work(Tenure tenure) {
        unfencedActions++;
        if (!resource.write(tenure.leadership.token(), tenure.member.id, time.nowNanos())) {
            note(tenure.member + "'s fenced write with " + tenure.leadership.token() + " was refused");
        }
    }

    // ---------------------------------------------------------------- the checker

    /** After every event: at most one holder of the newest epoch, and the start and end of leaderless gaps. */
    private void observe() {
        Optional<FencingToken> newest = cluster.describe(ROLE);
        int holders = 0;
        boolean served = false;
        for (Member member : members) {
            Leadership held = member.running ? member.tenure.leadership : null;
            if (held != null && newest.isPresent() && held.token().equals(newest.get())) {
                holders++;
                served |= !member.paused();
            }
        }
        if (holders > 1) {
            violation(holders + " members hold the newest epoch " + newest.get());
        }
        long now = time.nowNanos();
        if (served && openGap != null) {
            closeGap(now, true);
        } else if (!served && openGap == null) {
            openGap = new Gap(now);
        }
    }

    private void closeGap(long now, boolean elected) {
        leaseEnds(now);
        openGap.endNanos = elected ? now : -1;
        gaps.add(openGap);
        openGap = null;
    }

    /**
     * The cluster's lease stops holding standbys back now (it is replaced, cleared, or the gap ends): it held them
     * until its deadline or until now, whichever came first. A lease written at this very instant held nobody.
     */
    private void leaseEnds(long now) {
        if (openGap != null && clusterLease != null && clusterLeaseSinceNanos < now) {
            long deadline = (clusterLease.deadline() - EPOCH_MILLIS) * MS;
            openGap.blockedUntilNanos = Math.max(openGap.blockedUntilNanos, Math.min(deadline, now));
        }
    }

    /**
     * The other running members that the succession rules let challenge at once were the lease gone, by their
     * clocks set back by the whole skew bound: those a resignation hands the role to.
     */
    private List<Member> dueWithoutLease(Member resigning) {
        RoleState folded = RoleStateBuilder.fold(ROLE, cluster.readRoleRecords(ROLE));
        RoleState withoutLease = new RoleState(ROLE, folded.roster(), Optional.empty());
        List<Member> due = new ArrayList<>();
        for (Member other : members) {
            if (other != resigning && other.running && Succession.evaluate(withoutLease, other.id,
                    other.clock.nowMillis() - 2 * settings.maxOffsetMillis(), settings.config()).action()
                    == Decision.Action.CHALLENGE) {
                due.add(other);
            }
        }
        return due;
    }

    /**
     * (5), hand-over: a leader that resigned while healthy does not take the role back before a standby that was
     * due at once and stayed healthy meanwhile.
     */
    private void checkResignations() {
        for (Resignation resigned : resignations) {
            Optional<Interval> next = intervals.stream().filter(i -> i.startOrder > resigned.order()).findFirst();
            if (next.isEmpty() || next.get().member != resigned.member()) {
                continue;
            }
            long from = resigned.atNanos();
            long to = next.get().startNanos;
            if (!healthyThroughout(resigned.member(), from, to)) {
                continue;
            }
            resigned.due().stream().filter(standby -> healthyThroughout(standby, from, to)).findFirst()
                    .ifPresent(standby -> violations.add("at " + from / MS + " ms " + resigned.member().id
                            + " resigned and at " + to / MS + " ms took the role back with " + next.get().token
                            + ", while " + standby.id + " was due to challenge and healthy throughout"));
        }
    }

    private static boolean healthyThroughout(Member member, long from, long to) {
        List<long[]> healthy = healthyStretches(member, from, to);
        return from == to ? healthy.isEmpty() && member.unhealthy.stream().noneMatch(u -> u[0] <= from && from < u[1])
                : healthy.size() == 1 && healthy.get(0)[0] == from && healthy.get(0)[1] == to;
    }

    /** (1): the tokens of accepted writes never go back. */
    private void checkFencedWrites() {
        FencedResource.Write newest = null;
        for (FencedResource.Write write : resource.accepted()) {
            if (newest != null && newest.token().supersedes(write.token())) {
                violations.add("at " + write.atNanos() / MS + " ms the fenced resource accepted a write by "
                        + write.member() + " with " + write.token() + " after one by " + newest.member() + " with "
                        + newest.token() + " at " + newest.atNanos() / MS + " ms");
            } else {
                newest = write;
            }
        }
    }

    /** (3): unfenced intervals never overlap, unless the earlier leader was frozen when its successor was elected. */
    private int checkOverlaps() {
        int afterPause = 0;
        for (int i = 0; i < intervals.size(); i++) {
            Interval earlier = intervals.get(i);
            for (int j = i + 1; j < intervals.size(); j++) {
                Interval later = intervals.get(j);
                if (later.startOrder > earlier.endOrder) {
                    continue;
                }
                if (earlier.member.pausedAt(later.startNanos)) {
                    afterPause++;
                } else {
                    violations.add("at " + later.startNanos / MS + " ms " + later.member.id + " was elected with "
                            + later.token + " while " + earlier.member.id + " (not paused) still ran its unfenced work"
                            + " with " + earlier.token + ", until " + (earlier.endNanos == Long.MAX_VALUE ? "the end"
                            : earlier.endNanos / MS + " ms"));
                }
            }
        }
        return afterPause;
    }

    /**
     * (5): within every gap without a serving leader, no member stayed healthy for longer than the bound after
     * the lease stopped holding standbys back. Returns the gaps measured and the worst lateness.
     */
    private long[] checkLiveness(long endNanos) {
        long bound = settings.boundMillis() * MS;
        int measured = 0;
        long worst = Long.MIN_VALUE;
        for (Gap gap : gaps) {
            long from = Math.max(gap.startNanos, gap.blockedUntilNanos);
            long to = gap.endNanos >= 0 ? gap.endNanos : endNanos;
            long earliestHealthy = Long.MAX_VALUE;
            for (Member member : members) {
                for (long[] healthy : healthyStretches(member, from, to)) {
                    if (healthy[1] - healthy[0] > bound) {
                        violations.add("no serving leader from " + gap.startNanos / MS + " ms to "
                                + (gap.endNanos >= 0 ? gap.endNanos / MS + " ms" : "the end") + " (leases held "
                                + "standbys back until " + from / MS + " ms) while " + member.id + " was healthy from "
                                + healthy[0] / MS + " ms to " + healthy[1] / MS + " ms, longer than the bound of "
                                + settings.boundMillis() + " ms");
                    }
                    if (healthy[1] == to) {
                        earliestHealthy = Math.min(earliestHealthy, healthy[0]);
                    }
                }
            }
            if (gap.endNanos >= 0 && earliestHealthy != Long.MAX_VALUE && gap.startNanos > 0) {
                measured++;
                worst = Math.max(worst, (to - earliestHealthy - bound) / MS);
            }
            if (options.trace() && trace.size() < MAX_TRACE) {
                trace.add("no serving leader from " + gap.startNanos / MS + " ms to " + (gap.endNanos >= 0
                        ? gap.endNanos / MS + " ms" : "the end") + "; leases held standbys back until " + from / MS
                        + " ms" + (earliestHealthy == Long.MAX_VALUE ? "; no member healthy at its end"
                        : "; a member healthy from " + earliestHealthy / MS + " ms; " + (to - earliestHealthy) / MS
                        + " ms against the bound of " + settings.boundMillis() + " ms"));
            }
        }
        return new long[] {measured, worst};
    }

    /** The stretches of {@code [from, to]} in which a member was healthy. */
    private static List<long[]> healthyStretches(Member member, long from, long to) {
        List<long[]> bad = new ArrayList<>(member.unhealthy);
        bad.sort((a, b) -> Long.compare(a[0], b[0]));
        List<long[]> healthy = new ArrayList<>();
        long cursor = from;
        for (long[] stretch : bad) {
            if (stretch[1] <= cursor) {
                continue;
            }
            if (stretch[0] >= to) {
                break;
            }
            if (stretch[0] > cursor) {
                healthy.add(new long[] {cursor, stretch[0]});
            }
            cursor = Math.max(cursor, stretch[1]);
        }
        if (cursor < to) {
            healthy.add(new long[] {cursor, to});
        }
        return healthy;
    }

    /** The shared cluster, noting every lease written or cleared so that gaps know how long standbys must wait. */
    private final class Recording implements CoordinationTransport {

        @Override
        public FencingToken acquireEpoch(Role role) {
            FencingToken minted = cluster.acquireEpoch(role);
            note("epoch " + minted + " minted");
            return minted;
        }

        @Override
        public List<CoordinationEntry> readRoleRecords(Role role) {
            return cluster.readRoleRecords(role);
        }

        @Override
        public void register(Role role, MemberId member, long atMillis) {
            cluster.register(role, member, atMillis);
        }

        @Override
        public void deregister(Role role, MemberId member) {
            cluster.deregister(role, member);
        }

        @Override
        public Lease writeLease(Role role, FencingToken token, Lease lease) {
            Lease written = cluster.writeLease(role, token, lease);
            leaseEnds(time.nowNanos());
            clusterLease = written;
            clusterLeaseSinceNanos = time.nowNanos();
            return written;
        }

        @Override
        public void clearLease(Role role, FencingToken token) {
            cluster.clearLease(role, token);
            leaseEnds(time.nowNanos());
            clusterLease = null;
            note("lease " + token + " cleared");
        }

        @Override
        public Optional<FencingToken> describe(Role role) {
            return cluster.describe(role);
        }

        @Override
        public Set<Role> roles() {
            return cluster.roles();
        }

        @Override
        public void close() {
            // the cluster lives as long as the run
        }
    }
}
