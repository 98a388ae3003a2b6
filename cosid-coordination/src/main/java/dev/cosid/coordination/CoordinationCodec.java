package dev.cosid.coordination;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The frozen record format of the coordination topic, byte-compatible with existing clients:
 * big-endian integers, strings as an {@code i16} byte length then UTF-8 bytes.
 *
 * <pre>{@code
 * key:                version i16 = 0 | kind i16 | role string | member string (empty for a lease key)
 * registration value: version i16 = 0 | member string | registered_at i64
 * lease value:        version i16 = 0 | member string | producer_id i64 | producer_epoch i16 | granted_at i64 | deadline i64
 * }</pre>
 *
 * A null value and a zero-length value are both tombstones: Kafka compaction only removes a null one,
 * but clients of the format that cannot send null write zero bytes to clear a record. Decoding throws
 * {@link CoordinationException}, and nothing else, for any malformed input.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * byte[] key = CoordinationCodec.encodeKey(CoordinationKey.lease(role));
 * Optional<CoordinationValue> value = CoordinationCodec.decodeValue(RecordKind.LEASE, bytes);
 * }</pre>
 */
public final class CoordinationCodec {

    private static final short VERSION = 0;

    private CoordinationCodec() {
    }

    /**
     * Encodes a key.
     *
     * @param key the key
     * @return its bytes
     */
    public static byte[] encodeKey(CoordinationKey key) {
        byte[] role = utf8(key.role().name());
        byte[] member = key.member() == null ? new byte[0] : utf8(key.member().name());
        return ByteBuffer.allocate(8 + role.length + member.length)
                .putShort(VERSION).putShort(key.kind().code())
                .putShort((short) role.length).put(role)
                .putShort((short) member.length).put(member)
                .array();
    }

    /**
     * Encodes a value.
     *
     * @param value a registration or a lease
     * @return its bytes
     */
    public static byte[] encodeValue(CoordinationValue value) {
        byte[] member = utf8(value.member().name());
        if (value instanceof Registration registration) {
            return ByteBuffer.allocate(12 + member.length).putShort(VERSION)
                    .putShort((short) member.length).put(member).putLong(registration.registeredAt()).array();
        }
        Lease lease = (Lease) value;
        return ByteBuffer.allocate(30 + member.length).putShort(VERSION)
                .putShort((short) member.length).put(member)
                .putLong(lease.token().producerId()).putShort(lease.token().producerEpoch())
                .putLong(lease.grantedAt()).putLong(lease.deadline()).array();
    }

    /**
     * Decodes a key.
     *
     * @param bytes the key bytes
     * @return the key
     * @throws CoordinationException naming the part that is malformed
     */
    public static CoordinationKey decodeKey(byte[] bytes) {
        if (bytes == null) {
            throw new CoordinationException("a coordination key is null");
        }
        return decode("key", bytes, buffer -> {
            version(buffer, "key");
            RecordKind kind = RecordKind.ofCode(buffer.getShort());
            String role = string(buffer, "role");
            String member = string(buffer, "member");
            if (role.isEmpty()) {
                throw new CoordinationException("the key's role is empty");
            }
            if (kind == RecordKind.LEASE && !member.isEmpty()) {
                throw new CoordinationException("a lease key names member '" + member + "'");
            }
            if (kind == RecordKind.REGISTRATION && member.isEmpty()) {
                throw new CoordinationException("a registration key has an empty member");
            }
            return kind == RecordKind.LEASE ? CoordinationKey.lease(Role.of(role))
                    : CoordinationKey.registration(Role.of(role), MemberId.of(member));
        });
    }

    /**
     * Decodes a value of a kind.
     *
     * @param kind the kind, from the record's key
     * @param bytes the value bytes; null or zero bytes for a tombstone
     * @return the value, or empty for a tombstone
     * @throws CoordinationException naming the part that is malformed
     */
    public static Optional<CoordinationValue> decodeValue(RecordKind kind, byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            return Optional.empty();
        }
        if (kind == null) {
            throw new CoordinationException("the record kind is null");
        }
        return Optional.of(decode(kind.name().toLowerCase(java.util.Locale.ROOT) + " value", bytes, buffer -> {
            version(buffer, "value");
            String member = string(buffer, "member");
            if (member.isEmpty()) {
                throw new CoordinationException("the " + kind.name().toLowerCase(java.util.Locale.ROOT)
                        + " value's member is empty");
            }
            if (kind == RecordKind.REGISTRATION) {
                return new Registration(MemberId.of(member), buffer.getLong());
            }
            long producerId = buffer.getLong();
            short epoch = buffer.getShort();
            if (producerId < 0 || epoch < 0) {
                throw new CoordinationException("the lease's token " + producerId + ":" + epoch + " is negative");
            }
            return new Lease(MemberId.of(member), FencingToken.of(producerId, epoch), buffer.getLong(), buffer.getLong());
        }));
    }

    @FunctionalInterface
    private interface Reader<T> {
        T read(ByteBuffer buffer);
    }

    private static <T> T decode(String what, byte[] bytes, Reader<T> reader) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        T result;
        try {
            result = reader.read(buffer);
        } catch (BufferUnderflowException e) {
            throw new CoordinationException("the " + what + " of " + bytes.length + " bytes is truncated");
        } catch (CoordinationException e) {
            throw new CoordinationException("malformed " + what + ": " + e.getMessage());
        } catch (RuntimeException e) {
            throw new CoordinationException("malformed " + what + ": " + e.getMessage(), e);
        }
        if (buffer.hasRemaining()) {
            throw new CoordinationException("the " + what + " has " + buffer.remaining() + " trailing bytes");
        }
        return result;
    }

    private static void version(ByteBuffer buffer, String what) {
        short version = buffer.getShort();
        if (version != VERSION) {
            throw new CoordinationException("unknown " + what + " version " + version);
        }
    }

    private static String string(ByteBuffer buffer, String what) {
        short length = buffer.getShort();
        if (length < 0) {
            throw new CoordinationException("the " + what + " has a negative length " + length);
        }
        if (length > Names.MAX_BYTES) {
            throw new CoordinationException("the " + what + " length " + length + " exceeds " + Names.MAX_BYTES
                    + " bytes");
        }
        if (length > buffer.remaining()) {
            throw new CoordinationException("the " + what + " length " + length + " overruns the "
                    + buffer.remaining() + " remaining bytes (truncated)");
        }
        ByteBuffer slice = buffer.slice();
        slice.limit(length);
        buffer.position(buffer.position() + length);
        try {
            CharBuffer chars = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new CoordinationException("the " + what + " is not valid UTF-8");
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
