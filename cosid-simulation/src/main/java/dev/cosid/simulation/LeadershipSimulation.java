package dev.cosid.simulation;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * One seeded leadership run: members race for a role on the in-memory transport with skewed clocks,
 * pauses past their lease and crashes. After every event the checker asserts that at most one member
 * holds an unfenced epoch, and that accepted lease writes never go back to an older epoch; it measures
 * each failover against {@code deadline + rank * stagger}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeadershipSimulation.Report report = LeadershipSimulation.run(42, Duration.ofSeconds(60));
 * }</pre>
 */
public final class LeadershipSimulation {

    private static final Role ROLE = Role.of("controller");
    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(3), Duration.ofSeconds(1),
            Duration.ofMillis(500));
    private static final long RETRY_MILLIS = 100;
    private static final long MAX_SKEW_MILLIS = 400;

    /**
     * What one run produced.
     *
     * @param seed the seed
     * @param takeovers how many times the role changed hands
     * @param measured how many of them were clean failovers, measured against the bound
     * @param faults faults injected, by kind
     * @param worstFailoverPastBoundMillis the largest amount by which a clean takeover (no fault on any
     *     standby meanwhile) came later than {@code deadline + (members - 1) * stagger + retry + 2 * max skew};
     *     0 or less when all were in time, {@code Long.MIN_VALUE} when none was measured
     * @param violations safety violations; empty when at most one unfenced holder existed at every instant
     */
    public record Report(long seed, int takeovers, int measured, Map<String, Integer> faults,
                         long worstFailoverPastBoundMillis, List<String> violations) {
    }

    private LeadershipSimulation() {
    }

    /** The in-memory transport, recording every accepted lease write to check that epochs never go back. */
    private static final class Recording implements CoordinationTransport {
        final InMemoryTransport transport = new InMemoryTransport();
        FencingToken newestWritten = FencingToken.NO_EPOCH;
        final List<String> violations = new ArrayList<>();

        @Override
        public FencingToken acquireEpoch(Role role) {
            return transport.acquireEpoch(role);
        }

        @Override
        public List<CoordinationEntry> readRoleRecords(Role role) {
            return transport.readRoleRecords(role);
        }

        @Override
        public void register(Role role, MemberId member, long atMillis) {
            transport.register(role, member, atMillis);
        }

        @Override
        public void deregister(Role role, MemberId member) {
            transport.deregister(role, member);
        }

        @Override
        public Lease writeLease(Role role, FencingToken token, Lease lease) {
            Lease written = transport.writeLease(role, token, lease);
            if (newestWritten.supersedes(token)) {
                violations.add("a lease write with " + token + " was accepted after one with " + newestWritten);
            }
            newestWritten = token.supersedes(newestWritten) ? token : newestWritten;
            return written;
        }

        @Override
        public void clearLease(Role role, FencingToken token) {
            transport.clearLease(role, token);
        }

        @Override
        public Optional<FencingToken> describe(Role role) {
            return transport.describe(role);
        }

        @Override
        public java.util.Set<Role> roles() {
            return transport.roles();
        }

        @Override
        public void close() {
            transport.close();
        }
    }

    private static final class Member {
        final MemberId id;
        final SimClock clock;
        final CoordinationClient client;
        Leadership leadership;
        long pausedUntil;
        boolean down;
        /** The end of the latest fault that hit this member, in virtual nanoseconds. */
        long disturbedUntil = -1;

        Member(MemberId id, SimClock clock, CoordinationTransport transport) {
            this.id = id;
            this.clock = clock;
            this.client = new CoordinationClient(transport, CONFIG, clock, Duration.ofMillis(RETRY_MILLIS));
        }
    }

    /**
     * Runs one seed.
     *
     * @param seed the seed
     * @param duration virtual time to simulate
     * @return the report
     */
    public static Report run(long seed, Duration duration) {
        Random random = new Random(seed);
        VirtualTime time = new VirtualTime();
        Recording transport = new Recording();
        long epoch = 1_800_000_000_000L;
        Map<String, Integer> faults = new TreeMap<>();
        List<String> violations = new ArrayList<>();
        List<Member> members = new ArrayList<>();
        int count = 2 + random.nextInt(3);
        for (int i = 0; i < count; i++) {
            SimClock clock = new SimClock(time, epoch);
            clock.step(random.nextInt((int) (2 * MAX_SKEW_MILLIS + 1)) - MAX_SKEW_MILLIS);
            members.add(new Member(MemberId.of("m" + i), clock, transport));
        }
        faults.put("members on skewed clocks", count);
        long[] orphanedAt = {-1};
        long[] worst = {Long.MIN_VALUE};
        int[] takeovers = {0, 0};
        MemberId[] lastHolder = {null};
        for (Member member : members) {
            time.after(Duration.ofMillis(random.nextInt(500)).toNanos(), () -> step(member, time, transport, members,
                    violations, orphanedAt, worst, takeovers, lastHolder));
        }
        for (long at = Duration.ofSeconds(1).toNanos(); at < duration.toNanos();
             at += Duration.ofMillis(3_000 + random.nextInt(5_000)).toNanos()) {
            time.at(at, () -> {
                Member victim = members.get(random.nextInt(members.size()));
                victim.disturbedUntil = time.nowNanos();
                switch (random.nextInt(4)) {
                    case 0:
                        faults.merge("member paused past its lease", 1, Integer::sum);
                        victim.pausedUntil = time.nowNanos() + Duration.ofMillis(3_500 + random.nextInt(3_000)).toNanos();
                        victim.disturbedUntil = victim.pausedUntil;
                        break;
                    case 1:
                        faults.merge("member crashed and recovered", 1, Integer::sum);
                        victim.leadership = null;
                        victim.down = true;
                        long recovery = Duration.ofMillis(random.nextInt(6_000)).toNanos();
                        victim.disturbedUntil = time.nowNanos() + recovery;
                        time.after(recovery, () -> {
                            victim.down = false;
                            transport.register(ROLE, victim.id, victim.clock.nowMillis()); // lands at the tail
                        });
                        break;
                    case 2:
                        faults.merge("member clock stepped", 1, Integer::sum);
                        victim.clock.step(random.nextInt(2 * (int) MAX_SKEW_MILLIS + 1) - MAX_SKEW_MILLIS);
                        break;
                    default:
                        break;
                }
            });
        }
        time.runUntil(duration.toNanos());
        violations.addAll(transport.violations);
        return new Report(seed, takeovers[0], takeovers[1], faults, worst[0], violations);
    }

    private static void step(Member member, VirtualTime time, Recording transport, List<Member> members,
                             List<String> violations, long[] orphanedAt, long[] worst, int[] takeovers,
                             MemberId[] lastHolder) {
        time.after(Duration.ofMillis(RETRY_MILLIS).toNanos(), () -> step(member, time, transport, members, violations,
                orphanedAt, worst, takeovers, lastHolder));
        if (member.down || time.nowNanos() < member.pausedUntil) {
            return;
        }
        if (member.leadership == null) {
            Optional<Leadership> won = member.client.tryAcquire(ROLE, member.id);
            if (won.isPresent()) {
                member.leadership = won.get();
                if (lastHolder[0] != null && !lastHolder[0].equals(member.id)) {
                    takeovers[0]++;
                    // measure only a clean failover: no fault touched a standby while the role was orphaned
                    long orphaned = orphanedAt[0];
                    boolean clean = orphaned >= 0 && members.stream().filter(m -> !m.id.equals(lastHolder[0]))
                            .allMatch(m -> m.disturbedUntil < orphaned - CONFIG.duration().toNanos());
                    if (clean) {
                        long bound = orphanedAt[0] + ((members.size() - 1) * CONFIG.challengeStagger().toMillis()
                                + RETRY_MILLIS + 2 * MAX_SKEW_MILLIS) * 1_000_000;
                        worst[0] = Math.max(worst[0], (time.nowNanos() - bound) / 1_000_000);
                        takeovers[1]++;
                    }
                }
                lastHolder[0] = member.id;
                orphanedAt[0] = -1;
            }
        } else if (member.leadership.renewDue()) {
            try {
                member.leadership.renew();
            } catch (FencedException fenced) {
                member.leadership = null;
            }
        }
        check(members, transport, violations, time, orphanedAt);
    }

    /** At most one member may hold the coordinator's newest epoch; note when the holder's lease runs out. */
    private static void check(List<Member> members, Recording transport, List<String> violations, VirtualTime time,
                              long[] orphanedAt) {
        Optional<FencingToken> newest = transport.describe(ROLE);
        int unfenced = 0;
        for (Member member : members) {
            if (member.leadership != null && newest.isPresent() && member.leadership.token().equals(newest.get())) {
                unfenced++;
            }
        }
        if (unfenced > 1) {
            violations.add("at " + time.nowNanos() / 1_000_000 + " ms " + unfenced + " members hold the newest epoch");
        }
        List<CoordinationEntry> records = transport.readRoleRecords(ROLE);
        Optional<Lease> lease = records.isEmpty() ? Optional.empty() : records.stream()
                .filter(entry -> entry.key().kind() == dev.cosid.coordination.RecordKind.LEASE)
                .reduce((a, b) -> b).flatMap(CoordinationEntry::value).map(Lease.class::cast);
        if (lease.isPresent() && orphanedAt[0] < 0) {
            Member holder = members.stream().filter(m -> m.id.equals(lease.get().member())).findFirst().orElseThrow();
            long deadlineVirtual = (lease.get().deadline() - holder.clock.nowMillis()) * 1_000_000 + time.nowNanos();
            if ((holder.down || time.nowNanos() < holder.pausedUntil) && deadlineVirtual <= time.nowNanos()) {
                orphanedAt[0] = deadlineVirtual;
            }
        }
    }
}
