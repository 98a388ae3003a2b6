package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The elector under a manual clock: every instant it acts at is the one {@link LeaseTiming} documents.
 * Members share one clock; each has a scheduler of its own, so that a test can freeze one member (its
 * timers do not run) while the others go on.
 */
class ElectorTest {

    private static final Role ROLE = Role.of("controller");
    /** 6 s leases renewed every 2 s, ranks 1 s apart; the default margin is then 600 ms. */
    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(6), Duration.ofSeconds(2),
            Duration.ofSeconds(1));
    private static final long START = 1_800_000_000_000L;

    private final ManualClock clock = new ManualClock(START);
    private final InMemoryTransport cluster = new InMemoryTransport();
    private final List<Member> members = new ArrayList<>();

    /** One member: its elector, its scheduler, its view of the cluster and what its listener heard. */
    private final class Member implements ElectionListener {
        final String name;
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final FlakyTransport transport = new FlakyTransport(cluster);
        final List<String> events = new ArrayList<>();
        final List<Long> renewedAt = new ArrayList<>();
        final List<Revocation> revocations = new ArrayList<>();
        Long electedAt;
        Long challengedAt;
        boolean frozen;
        Elector elector;

        Member(String name) {
            this.name = name;
        }

        Member start(LeaderWork work) {
            Elector.Builder builder = Elector.builder(transport, ROLE, MemberId.of(name)).config(CONFIG).clock(clock)
                    .scheduler(scheduler).callExecutor(Runnable::run).listener(this)
                    .retryInterval(Duration.ofMillis(500));
            if (work != null) {
                builder.work(work);
            }
            elector = builder.start();
            return this;
        }

        @Override
        public void registered(Role role, MemberId member) {
            events.add("registered");
        }

        @Override
        public void challenged(Role role, int rank) {
            events.add("challenged " + rank);
            challengedAt = clock.nowMillis();
        }

        @Override
        public void elected(Leadership leadership) {
            events.add("elected " + leadership.token());
            electedAt = clock.nowMillis();
        }

        @Override
        public void renewed(Leadership leadership, Lease lease) {
            renewedAt.add(clock.nowMillis());
        }

        @Override
        public void revoked(Revocation revocation) {
            events.add("revoked " + revocation.reason());
            revocations.add(revocation);
        }

        @Override
        public void leaderChanged(Role role, Optional<MemberId> leader) {
            events.add("leader " + leader.map(MemberId::toString).orElse("none"));
        }
    }

    private Member member(String name) {
        Member member = new Member(name);
        members.add(member);
        return member;
    }

    /** Moves the shared clock on in 10 ms steps, running every unfrozen member's due timers at each step. */
    private void advance(long millis) {
        long end = clock.nowMillis() + millis;
        runDue();
        while (clock.nowMillis() < end) {
            clock.advanceMillis(Math.min(10, end - clock.nowMillis()));
            runDue();
        }
    }

    private void runDue() {
        for (Member member : members) {
            if (!member.frozen) {
                member.scheduler.runDue();
            }
        }
    }

    /** Waits, with a bound, for a condition a thread of the elector makes true. */
    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) {
        dev.cosid.time.Clock real = dev.cosid.time.Clock.system();
        long deadline = real.monotonicNanos() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (real.monotonicNanos() > deadline) {
                throw new AssertionError("not within 10 s: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    @AfterEach
    void closeAll() {
        for (Member member : members) {
            member.frozen = false;
            member.transport.down = false;
            CountDownLatch hang = member.transport.hang;
            member.transport.hang = null;
            if (hang != null) {
                hang.countDown(); // a test that failed while a call hung must not hang the close
            }
            if (member.elector != null) {
                member.elector.close();
            }
        }
    }

    @Test
    void aLoneMemberRegistersChallengesAsRankZeroAndIsElectedAtOnce() {
        Member a = member("a").start(null);
        advance(0);
        assertEquals(List.of("leader none", "registered", "challenged 0", "elected 1000:0", "leader a"), a.events);
        assertEquals(START, a.electedAt);
        assertEquals(Elector.State.LEADING, a.elector.state());
        assertTrue(a.elector.leadership().orElseThrow().live());
    }

    @Test
    void theHolderRenewsAtEachRenewInstantAndNeverAtAnyOther() {
        Member a = member("a").start(null);
        advance(0);
        advance(7_000);
        // granted at START, renewed at grant + 2 s each time
        assertEquals(List.of(START + 2_000, START + 4_000, START + 6_000), a.renewedAt);
        Lease lease = a.elector.leadership().orElseThrow().lease();
        assertEquals(START + 6_000, lease.grantedAt());
        assertEquals(START + 12_000, lease.deadline());
    }

    @Test
    void aStandbyOfRankZeroChallengesAtTheDeadlineAndRankOneOneStaggerLater() {
        Member a = member("a").start(null);
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        Member c = member("c").start(null);
        advance(100);
        a.frozen = true; // a GC pause: a renews no more
        long deadline = a.elector.leadership().orElseThrow().lease().deadline();
        advance(deadline - clock.nowMillis() - 10);
        assertEquals(null, b.challengedAt, "nobody challenges a live lease");
        advance(10);
        assertEquals(deadline, b.challengedAt, "rank 0 challenges at exactly the deadline");
        assertTrue(b.elector.leading());
        advance(CONFIG.challengeStagger().toMillis() + 10);
        assertEquals(null, c.challengedAt, "rank 1 finds b's live lease at deadline + stagger and waits");
        assertFalse(c.elector.leading());
    }

    @Test
    void withNoLeaseRankOneChallengesOneStaggerAfterItsOwnRegistration() {
        // a and b register at once; nobody holds a lease, so each waits registeredAt + rank * stagger
        cluster.register(ROLE, MemberId.of("x"), START); // x is first in the roster but never campaigns
        Member b = member("b").start(null);
        advance(0);
        assertEquals(null, b.challengedAt);
        advance(CONFIG.challengeStagger().toMillis());
        assertEquals(START + CONFIG.challengeStagger().toMillis(), b.challengedAt);
        assertTrue(b.elector.leading());
    }

    @Test
    void whenRenewalsFailTheWorkStopsBeforeTheDeadlineAndAStandbyTakesOverAtIt() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        long[] interruptedAt = {0};
        Member a = member("a").start(leadership -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interruptedAt[0] = clock.nowMillis();
                interrupted.countDown();
            }
        });
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        a.transport.down = true; // a is cut off from the cluster but keeps running
        long deadline = a.elector.leadership().orElseThrow().lease().deadline();
        long margin = a.elector.revokeMargin().toMillis();
        assertEquals(600, margin);
        advance(deadline - margin - clock.nowMillis());
        assertTrue(interrupted.await(10, TimeUnit.SECONDS), "the work was interrupted");
        assertEquals(deadline - margin, interruptedAt[0], "stopped at the deadline minus the margin");
        assertEquals(Revocation.Reason.RENEWALS_FAILING, a.revocations.get(0).reason());
        assertEquals(deadline - margin, a.revocations.get(0).atMillis());
        assertFalse(a.elector.leading());
        assertFalse(a.revocations.get(0).leadership().live());
        assertThrows(FencedException.class, () -> a.revocations.get(0).leadership().requireLive());
        advance(margin);
        assertEquals(deadline, b.challengedAt);
        assertTrue(b.elector.leading());
    }

    @Test
    void theStopDoesNotWaitForARenewalThatHangsOnTheCluster() throws Exception {
        ExecutorService callThread = Executors.newSingleThreadExecutor();
        try {
            Member a = member("a");
            CountDownLatch interrupted = new CountDownLatch(1);
            a.elector = Elector.builder(a.transport, ROLE, MemberId.of("a")).config(CONFIG).clock(clock)
                    .scheduler(a.scheduler).callExecutor(callThread).listener(a)
                    .work(leadership -> {
                        try {
                            new CountDownLatch(1).await();
                        } catch (InterruptedException e) {
                            interrupted.countDown();
                        }
                    }).start();
            a.scheduler.runDue();
            // the election ends with the renewal's timer; wait until the call thread has finished it
            callThread.submit(() -> { }).get(10, TimeUnit.SECONDS);
            assertTrue(a.elector.leading());
            long deadline = a.elector.leadership().orElseThrow().lease().deadline();
            a.transport.hang = new CountDownLatch(1); // the next call waits on the cluster until released
            clock.advanceMillis(CONFIG.renewInterval().toMillis());
            a.scheduler.runDue(); // the renewal starts on the call thread and hangs there
            awaitTrue("the renewal hangs", () -> a.transport.hanging);
            clock.advanceMillis(deadline - a.elector.revokeMargin().toMillis() - clock.nowMillis());
            a.scheduler.runDue(); // the stop timer fires on this thread while the renewal still hangs
            assertTrue(interrupted.await(10, TimeUnit.SECONDS));
            assertEquals(Revocation.Reason.RENEWALS_FAILING, a.revocations.get(0).reason());
            assertTrue(a.transport.hanging, "the renewal was still waiting when the work stopped");
            a.transport.hang.countDown();
        } finally {
            callThread.shutdownNow();
        }
    }

    @Test
    void aMemberThatRecoversNeverTakesTheRoleBackFromItsSuccessor() {
        Member a = member("a").start(null);
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        a.transport.down = true;
        advance(CONFIG.duration().toMillis());
        assertTrue(b.elector.leading());
        a.transport.down = false; // a reaches the cluster again
        advance(5 * CONFIG.duration().toMillis());
        assertTrue(b.elector.leading(), "b keeps the role");
        assertFalse(a.elector.leading());
        assertEquals(1, b.events.stream().filter(e -> e.startsWith("elected")).count());
        assertEquals(1, a.events.stream().filter(e -> e.startsWith("elected")).count());
        assertEquals(Optional.of(MemberId.of("b")), a.elector.leader());
    }

    @Test
    void aHolderFencedByANewerEpochIsRevokedAtItsNextRenewal() {
        Member a = member("a").start(null);
        advance(0);
        // a challenger whose clock ran far ahead minted behind a's back and wrote its lease
        FencingToken newer = cluster.acquireEpoch(ROLE);
        cluster.register(ROLE, MemberId.of("z"), clock.nowMillis());
        cluster.writeLease(ROLE, newer, CONFIG.grant(MemberId.of("z"), newer, clock.nowMillis()));
        advance(CONFIG.renewInterval().toMillis());
        assertEquals(Revocation.Reason.FENCED, a.revocations.get(0).reason());
        assertTrue(newer.supersedes(a.revocations.get(0).leadership().token()));
        assertFalse(a.elector.leading(), "a waits behind z's live lease");
        assertEquals(Optional.of(MemberId.of("z")), a.elector.leader());
    }

    @Test
    void workThatReturnsGivesTheRoleUpAndTheStandbyTakesItWithoutWaitingForTheDeadline() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        Member a = member("a").start(leadership -> finish.await());
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        finish.countDown();
        awaitTrue("a's work ended", () -> !a.elector.leading());
        assertEquals(Revocation.Reason.WORK_ENDED, a.revocations.get(0).reason());
        advance(CONFIG.challengeStagger().toMillis() + 100);
        assertTrue(b.elector.leading(), "the standby took the role the work gave up");
        assertFalse(a.elector.leading(), "a did not take it straight back");
        assertTrue(clock.nowMillis() < START + CONFIG.duration().toMillis(), "well before the old deadline");
    }

    @Test
    void aLeaderThatResignsLetsTheStandbyTakeOverEvenThoughItRanksFirst() {
        Member a = member("a").start(null);
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        a.elector.resign();
        // b polls every 500 ms and, with no lease, challenges at its registration + 1 stagger
        advance(CONFIG.challengeStagger().toMillis() + 500);
        assertTrue(b.elector.leading(), "b took the role a gave up");
        assertFalse(a.elector.leading(), "a did not take it straight back");
        assertEquals(1, a.events.stream().filter(e -> e.startsWith("elected")).count());
        assertEquals(Revocation.Reason.RESIGNED, a.revocations.get(0).reason());
    }

    @Test
    void aLeaderThatResignedTakesTheRoleAgainWhenNoStandbyDoes() {
        Member a = member("a").start(null);
        advance(0);
        a.elector.resign();
        advance(10);
        assertFalse(a.elector.leading(), "a holds back for a retry interval and a stagger");
        advance(500 + CONFIG.challengeStagger().toMillis());
        assertTrue(a.elector.leading(), "with no standby, a takes the role again");
    }

    @Test
    void closingTheHolderResignsAndLeavesSoTheStandbyTakesOverAtOnce() {
        Member a = member("a").start(null);
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        a.elector.close();
        assertEquals(Revocation.Reason.RESIGNED, a.revocations.get(0).reason());
        assertEquals(Elector.State.CLOSED, a.elector.state());
        advance(600); // b polls every 500 ms
        assertTrue(b.elector.leading());
        assertTrue(clock.nowMillis() < START + 1_000);
        RoleState state = RoleStateBuilder.fold(ROLE, cluster.readRoleRecords(ROLE));
        assertTrue(state.registration(MemberId.of("a")).isEmpty(), "a left the roster");
        a.elector.close(); // idempotent
    }

    @Test
    void closeGivesTheRoleBackOnlyOnceTheInterruptedWorkHasStopped() {
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean leaseClearedBeforeStop = new java.util.concurrent.atomic.AtomicBoolean();
        Member a = member("a").start(leadership -> {
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                // cleaning up takes a while; the lease must still be there meanwhile
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
                leaseClearedBeforeStop.set(RoleStateBuilder.fold(ROLE, cluster.readRoleRecords(ROLE)).lease().isEmpty());
                stopped.set(true);
            }
        });
        advance(0);
        awaitTrue("a's work runs", () -> a.elector.leading());
        a.elector.close();
        assertTrue(stopped.get(), "close returned only after the work stopped");
        assertFalse(leaseClearedBeforeStop.get(), "the lease was given back after the work stopped, not before");
        assertTrue(RoleStateBuilder.fold(ROLE, cluster.readRoleRecords(ROLE)).lease().isEmpty());
    }

    @Test
    void aStandbyReportsEachNewLeader() {
        Member a = member("a").start(null);
        advance(0);
        Member b = member("b").start(null);
        advance(100);
        assertEquals("leader a", b.events.get(0));
        a.elector.close();
        advance(600);
        assertTrue(b.events.contains("leader b"));
    }

    @Test
    void aListenerThatThrowsNeverStopsTheElector() {
        Member a = member("a");
        a.elector = Elector.builder(a.transport, ROLE, MemberId.of("a")).config(CONFIG).clock(clock)
                .scheduler(a.scheduler).callExecutor(Runnable::run).listener(new ElectionListener() {
                    @Override
                    public void elected(Leadership leadership) {
                        throw new IllegalStateException("listener bug");
                    }

                    @Override
                    public void renewed(Leadership leadership, Lease lease) {
                        throw new IllegalStateException("listener bug");
                    }
                }).start();
        advance(0);
        advance(5_000);
        assertTrue(a.elector.leading());
        assertEquals(START + 4_000, a.elector.leadership().orElseThrow().lease().grantedAt());
    }

    @Test
    void startTwiceIsAnErrorAndTheMarginMustFitThePolicy() {
        Member a = member("a").start(null);
        assertThrows(IllegalStateException.class, a.elector::start);
        CoordinationException e = assertThrows(CoordinationException.class, () -> Elector.builder(cluster, ROLE,
                MemberId.of("x")).config(CONFIG).revokeMargin(Duration.ofSeconds(4)).build());
        assertEquals("the revoke margin of 4000 ms is not between 1 ms and the lease duration minus the renew "
                + "interval (4000 ms)", e.getMessage());
        assertEquals(Duration.ofSeconds(3), Elector.defaultRevokeMargin(LeaseConfig.DEFAULT));
    }

    @Test
    void revokedTokensAreOlderThanTheSuccessorsSoAFenceOrdersThem() {
        Member a = member("a").start(null);
        advance(0);
        FencingToken first = a.elector.leadership().orElseThrow().token();
        Member b = member("b").start(null);
        advance(100);
        a.transport.down = true;
        advance(CONFIG.duration().toMillis());
        FencingToken second = b.elector.leadership().orElseThrow().token();
        assertTrue(second.supersedes(first));
        assertNotEquals(first, second);
    }

    /** The in-memory cluster as one member sees it: calls fail while {@code down}, or wait while {@code hang} is set. */
    static final class FlakyTransport implements CoordinationTransport {
        private final CoordinationTransport cluster;
        volatile boolean down;
        volatile CountDownLatch hang;
        volatile boolean hanging;

        FlakyTransport(CoordinationTransport cluster) {
            this.cluster = cluster;
        }

        private void reach() {
            CountDownLatch latch = hang;
            if (latch != null) {
                hanging = true;
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                hanging = false;
                throw new CoordinationException("the call timed out");
            }
            if (down) {
                throw new CoordinationException("cannot reach the cluster");
            }
        }

        @Override
        public FencingToken acquireEpoch(Role role) {
            reach();
            return cluster.acquireEpoch(role);
        }

        @Override
        public List<CoordinationEntry> readRoleRecords(Role role) {
            reach();
            return cluster.readRoleRecords(role);
        }

        @Override
        public void register(Role role, MemberId member, long atMillis) {
            reach();
            cluster.register(role, member, atMillis);
        }

        @Override
        public void deregister(Role role, MemberId member) {
            reach();
            cluster.deregister(role, member);
        }

        @Override
        public Lease writeLease(Role role, FencingToken token, Lease lease) {
            reach();
            return cluster.writeLease(role, token, lease);
        }

        @Override
        public void clearLease(Role role, FencingToken token) {
            reach();
            cluster.clearLease(role, token);
        }

        @Override
        public Optional<FencingToken> describe(Role role) {
            reach();
            return cluster.describe(role);
        }

        @Override
        public Set<Role> roles() {
            reach();
            return cluster.roles();
        }

        @Override
        public void close() {
            // the shared cluster outlives each member's view of it
        }
    }
}
