package dev.cosid.coordination;

import java.nio.charset.StandardCharsets;

/**
 * The partition that holds every record of a role, so that offsets order them:
 * {@code toPositive(murmur2(utf8(role))) % partitions}, Kafka's own key hash and sign-bit mask.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * int partition = RolePartitioner.partitionFor(Role.of("controller"), 16); // 12
 * }</pre>
 */
public final class RolePartitioner {

    /** The default number of partitions of the coordination topic. */
    public static final int DEFAULT_PARTITIONS = 16;

    private RolePartitioner() {
    }

    /**
     * Returns the partition of a role.
     *
     * @param role the role
     * @param partitions the number of partitions, at least 1
     * @return the partition
     * @throws CoordinationException when the number of partitions is less than 1
     */
    public static int partitionFor(Role role, int partitions) {
        if (partitions < 1) {
            throw new CoordinationException("partitions " + partitions + " is less than 1");
        }
        return (murmur2(role.name().getBytes(StandardCharsets.UTF_8)) & 0x7fffffff) % partitions;
    }

    /** The 32-bit MurmurHash2 with Kafka's seed, as Kafka's default partitioner computes it. */
    static int murmur2(byte[] data) {
        final int m = 0x5bd1e995;
        final int r = 24;
        int length = data.length;
        int h = 0x9747b28c ^ length;
        int blocks = length / 4;
        for (int i = 0; i < blocks; i++) {
            int at = i * 4;
            int k = (data[at] & 0xff) | ((data[at + 1] & 0xff) << 8) | ((data[at + 2] & 0xff) << 16)
                    | ((data[at + 3] & 0xff) << 24);
            k *= m;
            k ^= k >>> r;
            k *= m;
            h *= m;
            h ^= k;
        }
        int tail = length & ~3;
        switch (length % 4) {
            case 3:
                h ^= (data[tail + 2] & 0xff) << 16;
                h ^= (data[tail + 1] & 0xff) << 8;
                h ^= data[tail] & 0xff;
                h *= m;
                break;
            case 2:
                h ^= (data[tail + 1] & 0xff) << 8;
                h ^= data[tail] & 0xff;
                h *= m;
                break;
            case 1:
                h ^= data[tail] & 0xff;
                h *= m;
                break;
            default:
                break;
        }
        h ^= h >>> 13;
        h *= m;
        h ^= h >>> 15;
        return h;
    }
}
