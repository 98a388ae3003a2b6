package dev.cosid.coordination.kafka;

import dev.cosid.coordination.CoordinationCodec;
import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationKey;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Role;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns the raw records of the coordination topic into entries, and refuses to skip a record that
 * could hide one.
 *
 * <p>Compaction keeps only the last record of each key, so only the last record of a key can carry
 * state. When that last record is malformed (a null key, an unknown key version, a truncated
 * value...), it could be a newer lease or registration of the role being read, so reading fails,
 * naming its partition and offset. A malformed record followed by a record with exactly the same key
 * bytes hides nothing and is passed over, and so is a tombstone whose key cannot be read: it can
 * only clear records with that same unreadable key. A record whose key is readable and names another
 * role is skipped whatever its value: it says nothing about this role. To clear a malformed record,
 * write a tombstone with its key.
 */
final class RecordDecoding {

    private RecordDecoding() {
    }

    /**
     * Decodes the records of one role from the records of its partition.
     *
     * @param role the role
     * @param records every record of the role's partition, in offset order
     * @return the role's entries
     * @throws CoordinationException naming partition and offset of a malformed record that could hide one
     */
    static List<CoordinationEntry> entriesOf(Role role, List<ConsumerRecord<byte[], byte[]>> records) {
        Map<RawKey, Long> lastOffsetOfKey = lastOffsets(records);
        List<CoordinationEntry> entries = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            boolean last = isLast(record, lastOffsetOfKey);
            CoordinationKey key;
            try {
                key = CoordinationCodec.decodeKey(record.key());
            } catch (CoordinationException malformed) {
                if (last && !isTombstone(record)) {
                    throw hiding(record, malformed, "role '" + role + "'");
                }
                continue;
            }
            if (!key.role().equals(role)) {
                continue;
            }
            try {
                entries.add(new CoordinationEntry(record.offset(), key,
                        CoordinationCodec.decodeValue(key.kind(), record.value())));
            } catch (CoordinationException malformed) {
                if (last) {
                    throw hiding(record, malformed, "role '" + role + "'");
                }
            }
        }
        return entries;
    }

    /**
     * Collects the roles named by the keys of records.
     *
     * @param records the records of one or more partitions
     * @return the roles
     * @throws CoordinationException naming partition and offset of a malformed key that could hide a role
     */
    static Set<Role> rolesOf(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<RawKey, Long> lastOffsetOfKey = lastOffsets(records);
        Set<Role> roles = new TreeSet<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try {
                roles.add(CoordinationCodec.decodeKey(record.key()).role());
            } catch (CoordinationException malformed) {
                if (isLast(record, lastOffsetOfKey) && !isTombstone(record)) {
                    throw hiding(record, malformed, "a role");
                }
            }
        }
        return roles;
    }

    /**
     * Returns the token a transaction description reports; a negative producer id or epoch means none.
     *
     * @param description the coordinator's description of a transactional id
     * @return the token, or empty when the coordinator holds no producer for it
     */
    static Optional<FencingToken> tokenOf(TransactionDescription description) {
        long producerId = description.producerId();
        int epoch = description.producerEpoch();
        if (producerId < 0 || epoch < 0 || epoch > Short.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(FencingToken.of(producerId, (short) epoch));
    }

    /** A key as compaction sees it: its exact bytes within one partition. */
    private record RawKey(int partition, ByteBuffer bytes) {

        static RawKey of(ConsumerRecord<byte[], byte[]> record) {
            return new RawKey(record.partition(), ByteBuffer.wrap(record.key()));
        }
    }

    /** Maps each key to the offset of its last record. */
    private static Map<RawKey, Long> lastOffsets(List<ConsumerRecord<byte[], byte[]>> records) {
        Map<RawKey, Long> last = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (record.key() != null) {
                last.merge(RawKey.of(record), record.offset(), Math::max);
            }
        }
        return last;
    }

    private static boolean isLast(ConsumerRecord<byte[], byte[]> record, Map<RawKey, Long> lastOffsetOfKey) {
        return record.key() == null || lastOffsetOfKey.get(RawKey.of(record)) == record.offset();
    }

    private static boolean isTombstone(ConsumerRecord<byte[], byte[]> record) {
        return record.value() == null || record.value().length == 0;
    }

    private static CoordinationException hiding(ConsumerRecord<byte[], byte[]> record, CoordinationException malformed,
                                                String hidden) {
        return new CoordinationException("malformed record at " + record.topic() + "-" + record.partition()
                + " offset " + record.offset() + ": " + malformed.getMessage() + "; it may hide a newer record of "
                + hidden + ", so the read fails; write a tombstone with the same key to clear it", malformed);
    }
}
