package dev.cosid;

import dev.cosid.lease.SlotLease;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every lease event as one line. */
final class RecordingListener implements CosIdListener {

    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void onSlotAcquired(SlotLease lease) {
        events.add("acquired " + lease.slot() + " fence " + lease.fence());
    }

    @Override
    public void onRenewed(SlotLease lease) {
        events.add("renewed " + lease.slot());
    }

    @Override
    public void onRenewalFailed(Throwable cause, int attempt) {
        events.add("renewal failed " + attempt);
    }

    @Override
    public void onSlotLost(SlotLease lease) {
        events.add("lost " + lease.slot() + " fence " + lease.fence());
    }

    @Override
    public void onClockSkew(long skewMillis) {
        events.add("skew " + skewMillis);
    }

    @Override
    public void onDuplicateOwnerKey(String key, int slot) {
        events.add("duplicate " + key + " on " + slot);
    }

    @Override
    public void onExhausted(long earliestExpiry) {
        events.add("exhausted until " + earliestExpiry);
    }
}
