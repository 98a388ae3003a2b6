package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.coordination.StoreLocks;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link CoordinationTransport} passes: epochs that supersede, fenced writes,
 * ordered records, and the election scenarios of the client on top of them. Lease time runs on a
 * manual clock; the transport itself is real. A transport that is also {@link StoreLocks} passes the lock tests
 * too, whose time the store's own clock judges, so they wait in real time (about a second per test, a few on etcd,
 * whose leases last whole seconds and at least its minimum TTL).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * class InMemoryTransportContractTest extends CoordinationTransportContract {
 *     protected CoordinationTransport createTransport() { return new InMemoryTransport(); }
 * }
 * }</pre>
 */
public abstract class CoordinationTransportContract {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));

    /** The transport under test. */
    protected CoordinationTransport transport;
    /** A role fresh for every test. */
    protected Role role;
    private final ManualClock clock = new ManualClock(1_800_000_000_000L);

    /**
     * Creates the transport under test; called before every test.
     *
     * @return a transport
     */
    protected abstract CoordinationTransport createTransport();

    /**
     * Opens a second client of the same cluster as {@link #transport}, as another process would; the test closes
     * it. The default calls {@link #createTransport()}, which for a real cluster is another client of it; a
     * transport that is its own cluster returns {@link #transport}.
     *
     * @return a transport to the same cluster
     */
    protected CoordinationTransport createPeer() {
        return createTransport();
    }

    @BeforeEach
    void openTransport() {
        transport = createTransport();
        role = Role.of("role-" + UUID.randomUUID().toString().substring(0, 8));
    }

    @AfterEach
    void closeTransport() {
        if (transport != null) {
            transport.close();
        }
    }

    private CoordinationClient client() {
        return new CoordinationClient(transport, CONFIG, clock);
    }

    @Test
    void everyMintedEpochSupersedesTheOneBefore() {
        assertEquals(Optional.empty(), transport.describe(role));
        FencingToken first = transport.acquireEpoch(role);
        FencingToken second = transport.acquireEpoch(role);
        assertTrue(first.minted());
        assertTrue(second.supersedes(first));
        assertEquals(Optional.of(second), transport.describe(role));
    }

    @Test
    void writesWithASupersededTokenAreFenced() {
        MemberId member = MemberId.of("a");
        FencingToken old = transport.acquireEpoch(role);
        transport.writeLease(role, old, CONFIG.grant(member, old, clock.nowMillis()));
        FencingToken newer = transport.acquireEpoch(role);
        assertThrows(FencedException.class, () -> transport.writeLease(role, old, CONFIG.grant(member, old, 1)));
        assertThrows(FencedException.class, () -> transport.clearLease(role, old));
        transport.writeLease(role, newer, CONFIG.grant(member, newer, clock.nowMillis()));
        transport.clearLease(role, newer);
    }

    @Test
    void everyEpochMintedThroughEitherOfTwoClientsSupersedesEveryEarlierOne() {
        try (CoordinationTransport peer = createPeer()) {
            List<FencingToken> minted = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                FencingToken token = (i % 2 == 0 ? transport : peer).acquireEpoch(role);
                for (FencingToken earlier : minted) {
                    assertTrue(token.supersedes(earlier), "mint " + i + ": " + token + " after " + minted);
                }
                minted.add(token);
                assertEquals(Optional.of(token), transport.describe(role), "mint " + i);
                assertEquals(Optional.of(token), peer.describe(role), "mint " + i);
            }
        }
    }

    @Test
    void aDeposedHoldersWriteAndClearAreFencedOnceAnotherClientMintedAndLeaveTheSuccessorsLease() {
        MemberId a = MemberId.of("a");
        MemberId b = MemberId.of("b");
        try (CoordinationTransport peer = createPeer()) {
            FencingToken old = transport.acquireEpoch(role);
            transport.writeLease(role, old, CONFIG.grant(a, old, clock.nowMillis()));
            FencingToken newer = peer.acquireEpoch(role);
            assertThrows(FencedException.class, () -> transport.clearLease(role, old), "a clear before any new lease");
            Lease successor = peer.writeLease(role, newer, CONFIG.grant(b, newer, clock.nowMillis()));
            assertThrows(FencedException.class, () -> transport.clearLease(role, old));
            assertThrows(FencedException.class, () -> transport.writeLease(role, old,
                    CONFIG.grant(a, old, clock.nowMillis())));
            assertEquals(Optional.of(successor), client().state(role).lease(), "the successor's lease stays");
            peer.clearLease(role, newer);
            assertEquals(Optional.empty(), client().state(role).lease(), "the successor cleared it");
        }
    }

    @Test
    void recordsComeBackInOffsetOrder() {
        transport.register(role, MemberId.of("a"), 1);
        transport.register(role, MemberId.of("b"), 2);
        FencingToken token = transport.acquireEpoch(role);
        transport.writeLease(role, token, CONFIG.grant(MemberId.of("a"), token, 3));
        List<CoordinationEntry> records = transport.readRoleRecords(role);
        assertEquals(3, records.size());
        for (int i = 1; i < records.size(); i++) {
            assertTrue(records.get(i).offset() > records.get(i - 1).offset());
        }
        assertTrue(transport.roles().contains(role));
    }

    @Test
    void aLapsedLeaseIsTakenOverAndTheDeposedLeaderIsFenced() {
        CoordinationClient client = client();
        MemberId a = MemberId.of("a");
        MemberId b = MemberId.of("b");
        Leadership leaderA = client.tryAcquire(role, a).orElseThrow();
        assertEquals(Optional.empty(), client.tryAcquire(role, b), "b waits while a's lease is live");
        clock.advance(Duration.ofSeconds(31)); // a stops renewing; its lease lapses
        Leadership leaderB = client.tryAcquire(role, b).orElseThrow();
        assertTrue(leaderB.token().supersedes(leaderA.token()));

        assertThrows(FencedException.class, leaderA::renew);
        assertThrows(FencedException.class, leaderA::renew, "the handle stays dead");
        assertThrows(FencedException.class, () -> transport.writeLease(role, leaderA.token(),
                CONFIG.grant(a, leaderA.token(), clock.nowMillis())), "the broker rejects the stale token");

        transport.register(role, a, clock.nowMillis()); // a recovers and registers again
        List<MemberId> roster = client.state(role).roster().stream().map(RosterEntry::member)
                .collect(Collectors.toList());
        assertEquals(List.of(b, a), roster, "a lands behind b");

        LeadershipStatus status = client.describe(role);
        assertEquals(Optional.of(b), status.holder());
        assertTrue(status.current());
        assertTrue(client.roles().stream().anyMatch(s -> s.role().equals(role) && s.holder().equals(Optional.of(b))));
        leaderB.renew();
        assertTrue(client.describe(role).current());
    }

    /**
     * Returns how many rounds of three simultaneous challengers one run plays. Each round on a real server
     * mints up to three epochs and reads the role a few times: 25 rounds in the test command (a store's
     * contract class then plays them in seconds, 200 took up to 90 s on a loaded machine);
     * {@code -Dcosid.coordination.challengeRounds=200} plays more in one run.
     *
     * @return the number of rounds
     */
    protected int simultaneousChallengeRounds() {
        return Integer.getInteger("cosid.coordination.challengeRounds", 25);
    }

    @Test
    void threeChallengersAtTheSameInstantLeaveExactlyOneUnfencedHolder() throws Exception {
        CoordinationClient client = client();
        List<MemberId> members = List.of(MemberId.of("x"), MemberId.of("y"), MemberId.of("z"));
        ExecutorService pool = Executors.newFixedThreadPool(members.size());
        try {
            for (int round = 0; round < simultaneousChallengeRounds(); round++) {
                Role contested = Role.of(role.name() + "-" + round);
                for (MemberId member : members) {
                    transport.register(contested, member, clock.nowMillis());
                }
                clock.advance(Duration.ofMinutes(1)); // past every rank's challenge instant
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Optional<Leadership>>> attempts = new ArrayList<>();
                for (MemberId member : members) {
                    attempts.add(pool.submit(() -> {
                        go.await();
                        return client.tryAcquire(contested, member);
                    }));
                }
                go.countDown();
                List<Leadership> winners = new ArrayList<>();
                for (Future<Optional<Leadership>> attempt : attempts) {
                    attempt.get(60, TimeUnit.SECONDS).ifPresent(winners::add);
                }
                // every attempt has finished, so no epoch is minted from here on: count at this one instant
                LeadershipStatus status = client.describe(contested);
                FencingToken current = status.token().orElseThrow();
                List<Leadership> unfenced = winners.stream()
                        .filter(winner -> winner.lease().token().equals(current))
                        .collect(Collectors.toList());
                assertEquals(1, unfenced.size(), "round " + round + ": winners " + winners + ", coordinator at "
                        + current);
                assertTrue(status.current(), "round " + round + ": the lease read is the unfenced holder's");
                assertEquals(Optional.of(unfenced.get(0).lease().member()), status.holder(), "round " + round);
                for (Leadership winner : winners) {
                    if (winner == unfenced.get(0)) {
                        winner.renew();
                    } else {
                        assertThrows(FencedException.class, winner::renew, "round " + round + ": " + winner);
                    }
                }
                assertTrue(client.describe(contested).current(), "round " + round + ": the holder renewed");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theLeaseAWriteReturnsIsTheOneAThirdPartySeesAsCurrent() {
        MemberId member = MemberId.of("a");
        FencingToken token = transport.acquireEpoch(role);
        for (int i = 0; i < 3; i++) {
            Lease granted = CONFIG.grant(member, token, clock.nowMillis());
            Lease written = transport.writeLease(role, token, granted);
            assertEquals(new Lease(member, written.token(), granted.grantedAt(), granted.deadline()), written,
                    "only the token may differ from the lease as granted");
            LeadershipStatus status = client().describe(role);
            assertEquals(Optional.of(written), status.lease());
            assertTrue(status.current(), "write " + i + ": " + status);
            clock.advance(Duration.ofSeconds(10));
        }
        CoordinationException mismatch = assertThrows(CoordinationException.class, () -> transport.writeLease(role,
                token, CONFIG.grant(member, FencingToken.of(token.producerId() + 1, (short) 0), clock.nowMillis())));
        assertTrue(mismatch.getMessage().contains("is written with token " + token), mismatch.getMessage());
    }

    @Test
    void everyLeaseWriteIsVisibleToTheReadThatFollowsIt() {
        MemberId member = MemberId.of("a");
        FencingToken token = transport.acquireEpoch(role);
        CoordinationClient client = client();
        for (int i = 0; i < 100; i++) {
            Lease written = transport.writeLease(role, token, CONFIG.grant(member, token, clock.nowMillis() + i));
            assertEquals(Optional.of(written), client.state(role).lease(), "write " + i);
        }
        transport.clearLease(role, token);
        assertEquals(Optional.empty(), client.state(role).lease(), "the clear");
    }

    @Test
    void aMemberThatLeavesIsGoneFromTheRosterUntilItRegistersAgain() {
        CoordinationClient client = client();
        MemberId a = MemberId.of("a");
        MemberId b = MemberId.of("b");
        transport.register(role, a, clock.nowMillis());
        transport.register(role, b, clock.nowMillis());
        client.leave(role, a);
        assertEquals(List.of(b), members(client));
        assertTrue(transport.roles().contains(role));
        transport.register(role, a, clock.nowMillis());
        assertEquals(List.of(b, a), members(client), "a registers again and lands at the tail");
    }

    private List<MemberId> members(CoordinationClient client) {
        return client.state(role).roster().stream().map(RosterEntry::member).collect(Collectors.toList());
    }

    @Test
    void resigningClearsTheLeaseSoAStandbyNeedNotWait() {
        CoordinationClient client = client();
        Leadership leader = client.tryAcquire(role, MemberId.of("a")).orElseThrow();
        client.tryAcquire(role, MemberId.of("b"));
        leader.close();
        assertEquals(Optional.empty(), client.describe(role).lease());
        // without a lease b (rank 1) waits one stagger from its own registration, not a's 30 s deadline
        clock.advance(Duration.ofSeconds(5));
        assertTrue(client.tryAcquire(role, MemberId.of("b")).isPresent());
    }

    private StoreLocks locks() {
        assumeTrue(transport instanceof StoreLocks, "the transport takes no locks");
        return (StoreLocks) transport;
    }

    @Test
    void aLockIsTakenOnceAndWithANewerTokenThanEveryEpochBefore() {
        StoreLocks locks = locks();
        FencingToken before = transport.acquireEpoch(role);
        Lease held = locks.tryLock(role, MemberId.of("a"), Duration.ofMinutes(1), Duration.ZERO).orElseThrow();
        assertTrue(held.token().supersedes(before), held.token() + " supersedes " + before);
        assertEquals(MemberId.of("a"), held.member());
        assertEquals(60_000, held.deadline() - held.grantedAt());
        assertEquals(Optional.of(held.token()), transport.describe(role));
        assertThrows(FencedException.class, () -> transport.clearLease(role, before), "the lock fenced the epoch");
        try (CoordinationTransport peer = createPeer()) {
            assertEquals(Optional.empty(), ((StoreLocks) peer).tryLock(role, MemberId.of("b"), Duration.ofMinutes(1),
                    Duration.ZERO), "b while a holds it");
            Lease lease = client().describe(role).lease().orElseThrow();
            assertEquals(held, lease, "the lock is the role's lease, for every reader");
        }
        assertEquals(Optional.empty(), locks.tryLock(role, MemberId.of("a"), Duration.ofMinutes(1), Duration.ZERO),
                "the holder again: a lock is not reentrant");
        assertTrue(locks.unlock(role, held.token(), Duration.ZERO));
        assertEquals(Optional.empty(), client().describe(role).lease(), "released with nothing left to hold");
    }

    @Test
    void anUnreleasedLockRunsOutAtItsDeadlineAndItsHolderCanNoLongerReleaseIt() {
        StoreLocks locks = locks();
        Lease first = locks.tryLock(role, MemberId.of("a"), Duration.ofMillis(800), Duration.ZERO).orElseThrow();
        try (CoordinationTransport peer = createPeer()) {
            StoreLocks other = (StoreLocks) peer;
            assertEquals(Optional.empty(), other.tryLock(role, MemberId.of("b"), Duration.ofMinutes(1), Duration.ZERO));
            Lease[] second = new Lease[1];
            Await.until(() -> (second[0] = other.tryLock(role, MemberId.of("b"), Duration.ofMinutes(1), Duration.ZERO)
                    .orElse(null)) != null, Duration.ofSeconds(15), "b takes the lock once a's ran out");
            assertTrue(second[0].token().supersedes(first.token()));
            assertFalse(locks.unlock(role, first.token(), Duration.ZERO), "a's release comes too late");
            assertEquals(Optional.of(second[0]), client().describe(role).lease(), "b still holds it");
            assertTrue(other.unlock(role, second[0].token(), Duration.ZERO));
        }
    }

    @Test
    void aReleasedLockIsFreeAtOnceWithoutAnAtLeastExtentAndHeldToItWithOne() {
        StoreLocks locks = locks();
        Lease quick = locks.tryLock(role, MemberId.of("a"), Duration.ofMinutes(1), Duration.ZERO).orElseThrow();
        assertTrue(locks.unlock(role, quick.token(), Duration.ZERO));
        Lease kept = locks.tryLock(role, MemberId.of("b"), Duration.ofMinutes(1), Duration.ofMillis(800))
                .orElseThrow(() -> new AssertionError("free at once after a release without an at-least extent"));
        assertTrue(locks.unlock(role, kept.token(), Duration.ofMillis(800)));
        assertEquals(Optional.empty(), locks.tryLock(role, MemberId.of("c"), Duration.ofMinutes(1), Duration.ZERO),
                "held until its grant plus the at-least extent, released or not");
        Lease[] next = new Lease[1];
        Await.until(() -> (next[0] = locks.tryLock(role, MemberId.of("c"), Duration.ofMinutes(1), Duration.ZERO)
                .orElse(null)) != null, Duration.ofSeconds(15), "c takes the lock once the at-least extent passed");
        assertTrue(next[0].token().supersedes(kept.token()));
        assertTrue(locks.unlock(role, next[0].token(), Duration.ZERO));
    }

    @Test
    void aLocksExtentsAreCheckedBeforeTheStoreIsAsked() {
        StoreLocks locks = locks();
        CoordinationException longer = assertThrows(CoordinationException.class, () -> locks.tryLock(role,
                MemberId.of("a"), Duration.ofSeconds(1), Duration.ofSeconds(2)));
        assertEquals("a lock's at-least extent of 2000 ms is longer than its at-most extent of 1000 ms",
                longer.getMessage());
        assertThrows(CoordinationException.class, () -> locks.tryLock(role, MemberId.of("a"), Duration.ZERO,
                Duration.ZERO));
        assertThrows(CoordinationException.class, () -> locks.unlock(role, FencingToken.of(1, (short) 0),
                Duration.ofMillis(-1)));
        assertEquals(Optional.empty(), transport.describe(role), "nothing was minted");
    }
}
