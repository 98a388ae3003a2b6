package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RosterEntry;
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
 * manual clock; the transport itself is real.
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

    @Test
    void threeChallengersAtTheSameInstantLeaveExactlyOneUnfencedHolder() throws Exception {
        CoordinationClient client = client();
        List<MemberId> members = List.of(MemberId.of("x"), MemberId.of("y"), MemberId.of("z"));
        for (MemberId member : members) {
            transport.register(role, member, clock.nowMillis());
        }
        clock.advance(Duration.ofMinutes(1)); // past every rank's challenge instant
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Optional<Leadership>>> attempts = new ArrayList<>();
            for (MemberId member : members) {
                attempts.add(pool.submit(() -> {
                    go.await();
                    return client.tryAcquire(role, member);
                }));
            }
            go.countDown();
            int unfenced = 0;
            for (Future<Optional<Leadership>> attempt : attempts) {
                Optional<Leadership> won = attempt.get(60, TimeUnit.SECONDS);
                if (won.isPresent()) {
                    try {
                        won.get().renew();
                        unfenced++;
                    } catch (FencedException fenced) {
                        assertFalse(client.describe(role).token().orElseThrow().equals(won.get().token()));
                    }
                }
            }
            assertEquals(1, unfenced);
            assertTrue(client.describe(role).current());
        } finally {
            pool.shutdownNow();
        }
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
}
