package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CoordinationCodecTest {

    private static final Role ROLE = Role.of("controller");
    private static final MemberId NODE = MemberId.of("node-1");

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    @Test
    void theRegistrationKeyMatchesTheFrozenVector() {
        byte[] key = CoordinationCodec.encodeKey(CoordinationKey.registration(ROLE, NODE));
        assertEquals("00000000000a636f6e74726f6c6c657200066e6f64652d31", hex(key));
        assertEquals(CoordinationKey.registration(ROLE, NODE), CoordinationCodec.decodeKey(key));
    }

    @Test
    void theControllerRoleLivesInPartitionTwelveOfSixteen() {
        assertEquals(12, RolePartitioner.partitionFor(ROLE, 16));
        assertThrows(CoordinationException.class, () -> RolePartitioner.partitionFor(ROLE, 0));
    }

    @Test
    void keysAndValuesRoundTrip() {
        CoordinationKey lease = CoordinationKey.lease(ROLE);
        assertEquals("00000001000a636f6e74726f6c6c65720000", hex(CoordinationCodec.encodeKey(lease)));
        assertEquals(lease, CoordinationCodec.decodeKey(CoordinationCodec.encodeKey(lease)));
        Registration registration = new Registration(NODE, 1_800_000_000_000L);
        Lease value = new Lease(NODE, FencingToken.of(4001, (short) 7), 1_800_000_000_000L, 1_800_000_030_000L);
        assertEquals(Optional.of(registration), CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                CoordinationCodec.encodeValue(registration)));
        assertEquals(Optional.of(value), CoordinationCodec.decodeValue(RecordKind.LEASE,
                CoordinationCodec.encodeValue(value)));
        assertEquals("0000" + "0006" + "6e6f64652d31" + "0000000000000fa1" + "0007" + "000001a3185c5000"
                + "000001a3185cc530", hex(CoordinationCodec.encodeValue(value)));
        assertEquals(Optional.empty(), CoordinationCodec.decodeValue(RecordKind.LEASE, null), "a tombstone");
    }

    @Test
    void everyGoldenVectorOfTheSharedFormatEncodesAndDecodesByteForByte() {
        CoordinationKey registrationKey = CoordinationKey.registration(ROLE, NODE);
        assertEquals("00000000000a636f6e74726f6c6c657200066e6f64652d31", hex(CoordinationCodec.encodeKey(registrationKey)));
        CoordinationKey leaseKey = CoordinationKey.lease(ROLE);
        assertEquals("00000001000a636f6e74726f6c6c65720000", hex(CoordinationCodec.encodeKey(leaseKey)));
        assertEquals(leaseKey, CoordinationCodec.decodeKey(bytes("00000001000a636f6e74726f6c6c65720000")));

        Registration registration = new Registration(NODE, 1_700_000_000_000L);
        assertEquals("000000066e6f64652d310000018bcfe56800", hex(CoordinationCodec.encodeValue(registration)));
        assertEquals(Optional.of(registration), CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                bytes("000000066e6f64652d310000018bcfe56800")));

        Lease lease = new Lease(NODE, FencingToken.of(4242, (short) 7), 1_700_000_000_000L, 1_700_000_030_000L);
        String leaseHex = "000000066e6f64652d31000000000000109200070000018bcfe568000000018bcfe5dd30";
        assertEquals(leaseHex, hex(CoordinationCodec.encodeValue(lease)));
        assertEquals(Optional.of(lease), CoordinationCodec.decodeValue(RecordKind.LEASE, bytes(leaseHex)));

        CoordinationKey umlaut = CoordinationKey.registration(Role.of("r\u00f6le"), MemberId.of("m"));
        assertEquals("00000000000572c3b66c6500016d", hex(CoordinationCodec.encodeKey(umlaut)),
                "a string's length counts UTF-8 bytes, not chars");
        assertEquals(umlaut, CoordinationCodec.decodeKey(bytes("00000000000572c3b66c6500016d")));
    }

    @Test
    void rolesLandInTheGoldenPartitionsOfSixteenWithKafkasSignBitMask() {
        assertEquals(12, RolePartitioner.partitionFor(Role.of("controller"), 16));
        assertEquals(10, RolePartitioner.partitionFor(Role.of("dispatcher"), 16));
        assertEquals(10, RolePartitioner.partitionFor(Role.of("role-a"), 16));
        assertEquals(12, RolePartitioner.partitionFor(Role.of("role-b"), 16));
        int hash = RolePartitioner.murmur2("role-a".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(-192_844_758, hash);
        assertEquals(6, Math.abs(hash) % 16, "Math.abs would put role-a elsewhere: the sign bit is masked instead");
        assertEquals(28, RolePartitioner.partitionFor(Role.of("controller"), 32));
    }

    @Test
    void aZeroLengthValueIsATombstoneLikeNull() {
        assertEquals(Optional.empty(), CoordinationCodec.decodeValue(RecordKind.LEASE, new byte[0]));
        assertEquals(Optional.empty(), CoordinationCodec.decodeValue(RecordKind.REGISTRATION, new byte[0]));
        assertEquals(Optional.empty(), CoordinationCodec.decodeValue(RecordKind.LEASE, null));
        rejects("truncated", () -> CoordinationCodec.decodeValue(RecordKind.LEASE, bytes("00")));
    }

    private static void rejects(String fragment, Runnable decode) {
        CoordinationException e = assertThrows(CoordinationException.class, decode::run);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void everyKindOfMalformedInputIsRejectedNamingThePart() {
        byte[] key = CoordinationCodec.encodeKey(CoordinationKey.registration(ROLE, NODE));
        rejects("unknown key version 1", () -> CoordinationCodec.decodeKey(bytes("0001" + hex(key).substring(4))));
        rejects("unknown record kind 7", () -> CoordinationCodec.decodeKey(bytes("00000007" + hex(key).substring(8))));
        rejects("negative length", () -> CoordinationCodec.decodeKey(bytes("00000000ffff")));
        rejects("exceeds 249 bytes", () -> CoordinationCodec.decodeKey(bytes("000000000100")));
        rejects("truncated", () -> CoordinationCodec.decodeKey(bytes(hex(key).substring(0, 20))));
        rejects("truncated", () -> CoordinationCodec.decodeKey(bytes("0000")));
        rejects("not valid UTF-8", () -> CoordinationCodec.decodeKey(bytes("000000000002c3280000")));
        rejects("2 trailing bytes", () -> CoordinationCodec.decodeKey(bytes(hex(key) + "abcd")));
        rejects("a lease key names member 'node-1'", () -> CoordinationCodec.decodeKey(
                bytes("00000001" + hex(key).substring(8))));
        rejects("role is empty", () -> CoordinationCodec.decodeKey(bytes("00000000000000066e6f64652d31")));
        rejects("empty member", () -> CoordinationCodec.decodeKey(bytes("00000000000a636f6e74726f6c6c65720000")));
        rejects("member is empty", () -> CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                bytes("000000000000000000000000")));
        byte[] negative = ByteBuffer.allocate(36).putShort((short) 0).putShort((short) 6).put(NODE.name().getBytes())
                .putLong(-5).putShort((short) 1).putLong(1).putLong(2).array();
        rejects("token -5:1 is negative", () -> CoordinationCodec.decodeValue(RecordKind.LEASE, negative));
        rejects("unknown value version 3", () -> CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                bytes("0003")));
        rejects("null", () -> CoordinationCodec.decodeKey(null));
    }

    @Test
    void fuzzedBytesOnlyEverRaiseCoordinationException() {
        Random random = new Random(20261202L);
        List<byte[]> seeds = List.of(
                CoordinationCodec.encodeKey(CoordinationKey.registration(ROLE, NODE)),
                CoordinationCodec.encodeKey(CoordinationKey.lease(ROLE)),
                CoordinationCodec.encodeValue(new Registration(NODE, 42)),
                CoordinationCodec.encodeValue(new Lease(NODE, FencingToken.of(1, (short) 1), 1, 2)));
        int decoded = 0;
        // 10,000 inputs in the test command (50,000 took 11 s of the module's critical path on a loaded machine);
        // -Dcosid.fuzz.inputs=1000000 for a long run
        for (int i = 0; i < Integer.getInteger("cosid.fuzz.inputs", 10_000); i++) {
            byte[] input;
            if (random.nextBoolean()) {
                input = new byte[random.nextInt(48)];
                random.nextBytes(input);
            } else {
                byte[] seed = seeds.get(random.nextInt(seeds.size()));
                input = java.util.Arrays.copyOf(seed, Math.max(0, seed.length + random.nextInt(7) - 3));
                for (int flips = random.nextInt(4); flips > 0 && input.length > 0; flips--) {
                    input[random.nextInt(input.length)] = (byte) random.nextInt(256);
                }
            }
            try {
                CoordinationCodec.decodeKey(input);
                decoded++;
            } catch (CoordinationException expected) {
                // the only failure allowed
            }
            for (RecordKind kind : RecordKind.values()) {
                try {
                    CoordinationCodec.decodeValue(kind, input);
                    decoded++;
                } catch (CoordinationException expected) {
                    // the only failure allowed
                }
            }
        }
        assertTrue(decoded > 40, "the fuzzer also produced valid records: " + decoded);
        assertArrayEquals(seeds.get(0), CoordinationCodec.encodeKey(CoordinationCodec.decodeKey(seeds.get(0))));
    }
}
