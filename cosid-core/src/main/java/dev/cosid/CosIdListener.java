package dev.cosid;

import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Lease events of one runtime; every callback defaults to doing nothing.
 *
 * <p>Callbacks run on the keeper's thread (or the caller of {@code start()}); a callback that throws
 * is logged and ignored, so it can never stop the keeper.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CosIdListener listener = new CosIdListener() {
 *     public void onClockSkew(long skewMillis) {
 *         metrics.gauge("cosid.clock.skew", skewMillis);
 *     }
 * };
 * }</pre>
 */
public interface CosIdListener {

    /** A listener that ignores every event. */
    CosIdListener NOOP = new CosIdListener() { };

    /**
     * Returns a listener that passes every event to each of the given ones, in order; one that throws
     * does not keep the event from the others.
     *
     * @param listeners the listeners
     * @return the listener of all of them
     */
    static CosIdListener all(CosIdListener... listeners) {
        List<CosIdListener> each = Stream.of(listeners).map(l -> (CosIdListener) new SafeListener(l)).toList();
        return new CosIdListener() {
            @Override
            public void onSlotAcquired(SlotLease lease) {
                each.forEach(l -> l.onSlotAcquired(lease));
            }

            @Override
            public void onSlotAcquired(SlotLease lease, Duration took) {
                each.forEach(l -> l.onSlotAcquired(lease, took));
            }

            @Override
            public void onGeneratorCreated(SnowflakeId generator) {
                each.forEach(l -> l.onGeneratorCreated(generator));
            }

            @Override
            public void onRenewed(SlotLease lease) {
                each.forEach(l -> l.onRenewed(lease));
            }

            @Override
            public void onRenewalFailed(Throwable cause, int attempt) {
                each.forEach(l -> l.onRenewalFailed(cause, attempt));
            }

            @Override
            public void onSlotLost(SlotLease lease) {
                each.forEach(l -> l.onSlotLost(lease));
            }

            @Override
            public void onClockSkew(long skewMillis) {
                each.forEach(l -> l.onClockSkew(skewMillis));
            }

            @Override
            public void onDuplicateOwnerKey(String key, int slot) {
                each.forEach(l -> l.onDuplicateOwnerKey(key, slot));
            }

            @Override
            public void onExhausted(long earliestExpiry) {
                each.forEach(l -> l.onExhausted(earliestExpiry));
            }

            @Override
            public void onSegmentReserved(SegmentRange range) {
                each.forEach(l -> l.onSegmentReserved(range));
            }

            @Override
            public void onSegmentFailed(String name, Throwable cause, int attempt) {
                each.forEach(l -> l.onSegmentFailed(name, cause, attempt));
            }
        };
    }

    /**
     * A slot was acquired, at start or after a loss.
     *
     * @param lease the new lease
     */
    default void onSlotAcquired(SlotLease lease) {
    }

    /**
     * A slot was acquired, with the time the acquisition took; by default calls
     * {@link #onSlotAcquired(SlotLease)}. The keeper calls this one.
     *
     * @param lease the new lease
     * @param took from the first read of the slot table to the lease, retries of an exhausted namespace included
     */
    default void onSlotAcquired(SlotLease lease, Duration took) {
        onSlotAcquired(lease);
    }

    /**
     * The runtime created a generator for a new id space.
     *
     * @param generator the generator
     */
    default void onGeneratorCreated(SnowflakeId generator) {
    }

    /**
     * A renewal succeeded.
     *
     * @param lease the renewed lease
     */
    default void onRenewed(SlotLease lease) {
    }

    /**
     * A renewal or re-acquisition failed and will be retried with back-off.
     *
     * @param cause the failure
     * @param attempt the number of consecutive failures, from 1
     */
    default void onRenewalFailed(Throwable cause, int attempt) {
    }

    /**
     * A renewal found the lease gone: generators refuse until a new slot is bound.
     *
     * @param lease the lease that was lost
     */
    default void onSlotLost(SlotLease lease) {
    }

    /**
     * The local clock differs from the store's by more than half the tolerance.
     *
     * @param skewMillis local minus store, ms
     */
    default void onClockSkew(long skewMillis) {
    }

    /**
     * A live lease holds this runtime's owner key under another incarnation; it is left alone.
     *
     * @param key the owner key
     * @param slot the slot of that lease
     */
    default void onDuplicateOwnerKey(String key, int slot) {
    }

    /**
     * Every slot of the namespace is held.
     *
     * @param earliestExpiry the earliest expiry of the live leases, store clock, ms
     */
    default void onExhausted(long earliestExpiry) {
    }

    /**
     * A segment generator reserved a range ahead of use.
     *
     * @param range the range
     */
    default void onSegmentReserved(SegmentRange range) {
    }

    /**
     * A segment reservation failed and will be retried with back-off.
     *
     * @param name the segment name
     * @param cause the failure
     * @param attempt the number of consecutive failures, from 1
     */
    default void onSegmentFailed(String name, Throwable cause, int attempt) {
    }
}
