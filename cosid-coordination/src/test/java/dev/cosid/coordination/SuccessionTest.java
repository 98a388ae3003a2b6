package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SuccessionTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final Role ROLE = Role.of("controller");
    private static final MemberId A = MemberId.of("a");
    private static final MemberId B = MemberId.of("b");
    private static final MemberId C = MemberId.of("c");
    private static final FencingToken TOKEN = FencingToken.of(1000, (short) 1);
    private final LeaseConfig config = LeaseConfig.DEFAULT;
    private final List<CoordinationEntry> log = new ArrayList<>();

    private void register(MemberId member, long at) {
        log.add(new CoordinationEntry(log.size(), CoordinationKey.registration(ROLE, member),
                Optional.of(new Registration(member, at))));
    }

    private void lease(MemberId member, long grantedAt) {
        log.add(new CoordinationEntry(log.size(), CoordinationKey.lease(ROLE),
                Optional.of(config.grant(member, TOKEN, grantedAt))));
    }

    private Decision evaluate(MemberId member, long now) {
        return Succession.evaluate(RoleStateBuilder.fold(ROLE, log), member, now, config);
    }

    @Test
    void aMemberThatIsNotRegisteredMustRegister() {
        assertEquals(Decision.Action.NOT_REGISTERED, evaluate(A, T0).action());
    }

    @Test
    void theHolderOfALiveLeaseHoldsAndRenewsWhenDue() {
        register(A, T0);
        lease(A, T0);
        Decision decision = evaluate(A, T0 + 5_000);
        assertEquals(Decision.Action.HOLD, decision.action());
        assertEquals(T0 + 10_000, decision.atMillis());
        assertEquals(OptionalInt.of(0), decision.rank());
    }

    @Test
    void standbysWaitForTheDeadlinePlusTheirRankTimesTheStagger() {
        register(A, T0);
        register(B, T0 + 1);
        register(C, T0 + 2);
        lease(A, T0);
        assertEquals(new Decision(Decision.Action.WAIT, T0 + 30_000, OptionalInt.of(0)), evaluate(B, T0 + 1_000));
        assertEquals(new Decision(Decision.Action.WAIT, T0 + 35_000, OptionalInt.of(1)), evaluate(C, T0 + 1_000));
        assertEquals(Decision.Action.CHALLENGE, evaluate(B, T0 + 30_000).action());
        assertEquals(Decision.Action.WAIT, evaluate(C, T0 + 30_000).action());
    }

    @Test
    void anExpiredHolderReclaimsAtItsOwnDeadline() {
        register(A, T0);
        register(B, T0 + 1);
        lease(A, T0);
        assertEquals(new Decision(Decision.Action.CHALLENGE, T0 + 30_000, OptionalInt.of(0)), evaluate(A, T0 + 30_000));
    }

    @Test
    void withoutALeaseTheChallengeIsAnchoredOnTheMembersOwnRegistration() {
        register(A, T0);
        register(B, T0 + 100);
        assertEquals(new Decision(Decision.Action.CHALLENGE, T0, OptionalInt.of(0)), evaluate(A, T0 + 50));
        Decision first = evaluate(B, T0 + 200);
        Decision later = evaluate(B, T0 + 4_000);
        assertEquals(new Decision(Decision.Action.WAIT, T0 + 5_100, OptionalInt.of(1)), first);
        assertEquals(first, later, "the challenge instant does not move with the clock");
        assertEquals(Decision.Action.CHALLENGE, evaluate(B, T0 + 5_100).action());
    }

    @Test
    void aStandbyBehindADeadRankZeroStillChallenges() {
        register(A, T0);
        register(B, T0 + 1);
        register(C, T0 + 2);
        lease(A, T0);
        // B (rank 0) is dead and never challenges; C challenges one stagger after the deadline
        assertEquals(Decision.Action.CHALLENGE, evaluate(C, T0 + 35_000).action());
    }

    @Test
    void aRecoveredNodeRegistersAgainAndLandsAtTheTail() {
        register(A, T0);
        register(B, T0 + 1);
        register(C, T0 + 2);
        lease(B, T0 + 40_000); // B replaced A
        register(A, T0 + 50_000); // A came back
        RoleState state = RoleStateBuilder.fold(ROLE, log);
        assertEquals(OptionalInt.of(0), state.rankOf(B));
        assertEquals(OptionalInt.of(0), state.rankOf(C));
        assertEquals(OptionalInt.of(1), state.rankOf(A), "no fail-back: A waits behind C");
        assertEquals(List.of(B, C, A), state.roster().stream().map(RosterEntry::member).collect(
                java.util.stream.Collectors.toList()));
    }

    @Test
    void theFoldDoesNotDependOnTheOrderOfRecords() {
        register(A, T0);
        register(B, T0 + 1);
        lease(A, T0);
        register(C, T0 + 2);
        lease(B, T0 + 30_000);
        log.add(new CoordinationEntry(log.size(), CoordinationKey.registration(ROLE, C), Optional.empty()));
        RoleState expected = RoleStateBuilder.fold(ROLE, log);
        Random random = new Random(11);
        for (int i = 0; i < 50; i++) {
            List<CoordinationEntry> shuffled = new ArrayList<>(log);
            Collections.shuffle(shuffled, random);
            assertEquals(expected, RoleStateBuilder.fold(ROLE, shuffled));
        }
        assertEquals(Optional.of(B), expected.lease().map(Lease::member));
    }

    @Test
    void aRegistrationTombstoneIsFinalAndALeaseTombstoneClearsTheLease() {
        register(A, T0);
        lease(A, T0);
        CoordinationEntry older = new CoordinationEntry(0, CoordinationKey.registration(ROLE, B),
                Optional.of(new Registration(B, T0)));
        log.add(new CoordinationEntry(5, CoordinationKey.registration(ROLE, B), Optional.empty()));
        log.add(new CoordinationEntry(6, CoordinationKey.lease(ROLE), Optional.empty()));
        log.add(older); // arrives late
        RoleState state = RoleStateBuilder.fold(ROLE, log);
        assertEquals(Optional.empty(), state.registration(B), "no revival after a tombstone");
        assertEquals(Optional.empty(), state.lease());
    }

    @Test
    void recordsOfOtherRolesAndValuesOfTheWrongKindAreDropped() {
        register(A, T0);
        log.add(new CoordinationEntry(7, CoordinationKey.registration(Role.of("other"), B),
                Optional.of(new Registration(B, T0))));
        log.add(new CoordinationEntry(8, CoordinationKey.lease(ROLE), Optional.of(new Registration(C, T0))));
        log.add(new CoordinationEntry(9, CoordinationKey.registration(ROLE, C),
                Optional.of(new Registration(MemberId.of("liar"), T0))));
        RoleState state = RoleStateBuilder.fold(ROLE, log);
        assertEquals(Optional.empty(), state.lease());
        assertTrue(state.registration(B).isEmpty());
        assertTrue(state.registration(C).isPresent(), "the member comes from the key");
        assertTrue(state.registration(MemberId.of("liar")).isEmpty());
    }

    @Test
    void tokensOrderByProducerIdThenEpochAcrossAnEpochWrap() {
        FencingToken beforeWrap = FencingToken.of(1000, (short) (Short.MAX_VALUE - 1));
        FencingToken afterWrap = FencingToken.of(1001, (short) 0);
        assertTrue(afterWrap.supersedes(beforeWrap));
        assertTrue(FencingToken.of(0, (short) 0).supersedes(FencingToken.NO_EPOCH));
        assertTrue(!FencingToken.NO_EPOCH.minted());
        assertEquals(FencingToken.of(1000, (short) 7), FencingToken.parse("1000:7"));
        assertEquals("1000:7", FencingToken.of(1000, (short) 7).toString());
        assertEquals(FencingToken.NO_EPOCH, FencingToken.parse("-1:-1"));
        assertThrows(CoordinationException.class, () -> FencingToken.of(-2, (short) 0));
        assertThrows(CoordinationException.class, () -> FencingToken.parse("12"));

        InMemoryTransport transport = new InMemoryTransport();
        transport.seedEpoch(ROLE, beforeWrap);
        FencingToken next = transport.acquireEpoch(ROLE);
        assertEquals(0, next.producerEpoch());
        assertTrue(next.supersedes(beforeWrap), "the new producer id outranks the exhausted one");
    }

    @Test
    void namesAreNonEmptyAndAtMost249Bytes() {
        assertThrows(CoordinationException.class, () -> Role.of(""));
        assertTrue(assertThrows(CoordinationException.class, () -> MemberId.of("é".repeat(125)))
                .getMessage().contains("250 UTF-8 bytes"));
        assertEquals(249, MemberId.of("x".repeat(249)).name().length());
        assertTrue(Role.of("a").compareTo(Role.of("b")) < 0);
    }
}
