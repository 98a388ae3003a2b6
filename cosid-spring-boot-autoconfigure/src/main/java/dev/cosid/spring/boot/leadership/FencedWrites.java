package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Role;

/**
 * An election listener that also hears of the writes a fenced path refused: {@link LeaderKafka} when the brokers
 * refused a transaction or this member did not lead, {@link LeaderJdbcFence} when the fence table held a newer token
 * or this member did not lead. The meters implement it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * class Refusals implements FencedWrites {
 *     public void refused(Role role, String path) { count(role, path); }
 * }
 * }</pre>
 */
interface FencedWrites extends ElectionListener {

    /**
     * A fenced path refused a write.
     *
     * @param role the role
     * @param path {@code kafka} or {@code jdbc}
     */
    void refused(Role role, String path);
}
