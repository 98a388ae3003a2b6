package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationCodec;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationKey;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Registration;
import dev.cosid.coordination.Role;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Records the broker cannot be made to hold (a null key on a compacted topic) and answers it cannot be
 * made to give (a negative producer id), decoded without a broker.
 */
class RecordDecodingTest {

    private static final Role ROLE = Role.of("controller");
    private static final byte[] LEASE_KEY = CoordinationCodec.encodeKey(CoordinationKey.lease(ROLE));

    private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] key, byte[] value) {
        return new ConsumerRecord<>("__coordination_state", 12, offset, key, value);
    }

    private static byte[] lease(String member) {
        return CoordinationCodec.encodeValue(new Lease(MemberId.of(member), FencingToken.of(7, (short) 1), 1, 2));
    }

    @Test
    void aNullKeyFailsTheReadNamingPartitionAndOffset() {
        List<ConsumerRecord<byte[], byte[]>> records = List.of(record(0, LEASE_KEY, lease("a")),
                record(1, null, lease("b")));
        CoordinationException e = assertThrows(CoordinationException.class,
                () -> RecordDecoding.entriesOf(ROLE, records));
        assertTrue(e.getMessage().startsWith("malformed record at __coordination_state-12 offset 1: a coordination key "
                + "is null; it may hide a newer record of role 'controller'"), e.getMessage());
        assertThrows(CoordinationException.class, () -> RecordDecoding.rolesOf(records));
    }

    @Test
    void aMalformedRecordThatALaterRecordOfItsKeySupersedesHidesNothing() {
        byte[] unknownVersion = LEASE_KEY.clone();
        unknownVersion[1] = 9;
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(0, LEASE_KEY, new byte[] {0, 0, 0}),
                record(1, unknownVersion, lease("x")),
                record(2, LEASE_KEY, lease("a")),
                record(3, unknownVersion, null),
                record(4, CoordinationCodec.encodeKey(CoordinationKey.lease(Role.of("other"))), new byte[] {1}));
        assertEquals(1, RecordDecoding.entriesOf(ROLE, records).size());
        assertEquals(Optional.of(new Lease(MemberId.of("a"), FencingToken.of(7, (short) 1), 1, 2)),
                RecordDecoding.entriesOf(ROLE, records).get(0).value());
        assertEquals(Set.of(ROLE, Role.of("other")), RecordDecoding.rolesOf(records));
    }

    @Test
    void theLastRecordOfTheRolesKeyBeingTruncatedFailsTheRead() {
        byte[] registrationKey = CoordinationCodec.encodeKey(CoordinationKey.registration(ROLE, MemberId.of("b")));
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(5, registrationKey, CoordinationCodec.encodeValue(new Registration(MemberId.of("b"), 3))),
                record(6, registrationKey, new byte[] {0, 0, 0, 1, 'b', 0}));
        CoordinationException e = assertThrows(CoordinationException.class,
                () -> RecordDecoding.entriesOf(ROLE, records));
        assertTrue(e.getMessage().contains("offset 6: the registration value of 6 bytes is truncated"), e.getMessage());
    }

    @Test
    void aNegativeProducerIdOrEpochInADescriptionMeansNoToken() {
        assertEquals(Optional.empty(), RecordDecoding.tokenOf(description(-1, -1)));
        assertEquals(Optional.empty(), RecordDecoding.tokenOf(description(-1, 0)));
        assertEquals(Optional.empty(), RecordDecoding.tokenOf(description(4, -1)));
        assertEquals(Optional.of(FencingToken.of(4, (short) 2)), RecordDecoding.tokenOf(description(4, 2)));
    }

    private static TransactionDescription description(long producerId, int epoch) {
        return new TransactionDescription(1, TransactionState.EMPTY, producerId, epoch, 60_000, OptionalLong.empty(),
                Set.of());
    }
}
