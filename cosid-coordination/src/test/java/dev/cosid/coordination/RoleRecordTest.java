package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RoleRecordTest {

    private static final Role ROLE = Role.of("controller");
    private static final MemberId A = MemberId.of("a");
    private static final MemberId B = MemberId.of("b");

    @Test
    void everyMintRaisesTheFenceByOneAndTheTokenIsTheFenceWithEpochZero() {
        RoleRecord record = RoleRecord.EMPTY;
        assertEquals(Optional.empty(), record.token());
        FencingToken previous = FencingToken.NO_EPOCH;
        for (int i = 1; i <= 5; i++) {
            record = record.minted();
            assertEquals(Optional.of(FencingToken.of(i, (short) 0)), record.token());
            assertTrue(record.token().orElseThrow().supersedes(previous));
            previous = record.token().orElseThrow();
        }
        assertThrows(CoordinationException.class, () -> RoleRecord.token(0));
    }

    @Test
    void registrationsTakeTheNextOffsetSoARegistrationAgainLandsAtTheTail() {
        RoleRecord record = RoleRecord.EMPTY.registered(A, 10).registered(B, 20);
        assertEquals(List.of(A, B), roster(record));
        record = record.registered(A, 30);
        assertEquals(List.of(B, A), roster(record), "a registered again lands behind b");
        RoleRecord left = record.deregistered(B);
        assertEquals(List.of(A), roster(left));
        assertSame(left, left.deregistered(B), "leaving twice changes nothing");
    }

    @Test
    void aLeaseIsWrittenAndClearedOnlyWithTheCurrentTokenAndTheFoldSeesIt() {
        RoleRecord record = RoleRecord.EMPTY.registered(A, 1).minted();
        FencingToken first = record.token().orElseThrow();
        Lease lease = new Lease(A, first, 100, 200);
        record = record.leaseWritten(ROLE, first, lease);
        assertEquals(Optional.of(lease), RoleStateBuilder.fold(ROLE, record.entries(ROLE)).lease());
        RoleRecord newer = record.minted();
        FencedException fenced = assertThrows(FencedException.class, () -> newer.leaseWritten(ROLE, first, lease));
        assertEquals("role 'controller': token 1:0 is fenced; the newest is 2:0", fenced.getMessage());
        assertThrows(FencedException.class, () -> newer.leaseCleared(ROLE, first));
        CoordinationException mismatch = assertThrows(CoordinationException.class, () -> newer.leaseWritten(ROLE,
                FencingToken.of(2, (short) 0), lease));
        assertTrue(mismatch.getMessage().contains("is written with token 2:0"), mismatch.getMessage());
        RoleRecord cleared = newer.leaseCleared(ROLE, FencingToken.of(2, (short) 0));
        assertEquals(Optional.empty(), RoleStateBuilder.fold(ROLE, cleared.entries(ROLE)).lease());
        assertThrows(FencedException.class, () -> RoleRecord.EMPTY.leaseCleared(ROLE, first), "no epoch yet");
    }

    @Test
    void entriesComeInOffsetOrder() {
        RoleRecord record = RoleRecord.EMPTY.registered(A, 1).minted();
        FencingToken token = record.token().orElseThrow();
        record = record.leaseWritten(ROLE, token, new Lease(A, token, 1, 2)).registered(B, 3);
        List<Long> offsets = record.entries(ROLE).stream().map(CoordinationEntry::offset).collect(Collectors.toList());
        assertEquals(List.of(1L, 2L, 3L), offsets);
    }

    @Test
    void theCodecGivesBackWhatItWasGiven() {
        RoleRecord record = RoleRecord.EMPTY.registered(A, 1).registered(MemberId.of("n\u00f6de\t2"), 2).minted()
                .minted();
        FencingToken token = record.token().orElseThrow();
        record = record.leaseWritten(ROLE, token, new Lease(A, token, Long.MIN_VALUE, Long.MAX_VALUE));
        assertEquals(record, RoleRecord.decode(ROLE, record.encode()));
        assertEquals(RoleRecord.EMPTY, RoleRecord.decode(ROLE, null));
        assertEquals(RoleRecord.EMPTY, RoleRecord.decode(ROLE, RoleRecord.EMPTY.encode()));
        assertArrayEquals(record.encode(), RoleRecord.decode(ROLE, record.encode()).encode());
    }

    @Test
    void malformedBytesFailWithACoordinationExceptionNamingTheRoleAndNothingElse() {
        RoleRecord record = RoleRecord.EMPTY.registered(A, 1).minted();
        FencingToken token = record.token().orElseThrow();
        byte[] good = record.leaseWritten(ROLE, token, new Lease(A, token, 5, 6)).encode();
        Random random = new Random(38);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = i % 2 == 0 ? java.util.Arrays.copyOf(good, random.nextInt(good.length + 4)) : good.clone();
            if (i % 2 == 1) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            try {
                RoleRecord.decode(ROLE, bytes);
            } catch (CoordinationException expected) {
                assertTrue(expected.getMessage().startsWith("the record of role 'controller' is malformed"),
                        expected.getMessage());
            }
        }
    }

    private static List<MemberId> roster(RoleRecord record) {
        return RoleStateBuilder.fold(ROLE, record.entries(ROLE)).roster().stream().map(RosterEntry::member)
                .collect(Collectors.toList());
    }
}
