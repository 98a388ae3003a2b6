package dev.cosid;

import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wraps a listener so that a callback that throws is logged and ignored. */
final class SafeListener implements CosIdListener {

    private static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);

    private final CosIdListener delegate;

    SafeListener(CosIdListener delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "listener");
    }

    private void call(String event, Consumer<CosIdListener> callback) {
        try {
            callback.accept(delegate);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError) {
                throw e;
            }
            // a listener that throws is a bug in the application: its stack trace is what helps fix it
            LOG.warn("CosIdListener.{} threw; ignored", event, e);
        }
    }

    @Override
    public void onSlotAcquired(SlotLease lease) {
        call("onSlotAcquired", listener -> listener.onSlotAcquired(lease));
    }

    @Override
    public void onSlotAcquired(SlotLease lease, Duration took) {
        call("onSlotAcquired", listener -> listener.onSlotAcquired(lease, took));
    }

    @Override
    public void onGeneratorCreated(SnowflakeId generator) {
        call("onGeneratorCreated", listener -> listener.onGeneratorCreated(generator));
    }

    @Override
    public void onRenewed(SlotLease lease) {
        call("onRenewed", listener -> listener.onRenewed(lease));
    }

    @Override
    public void onRenewalFailed(Throwable cause, int attempt) {
        call("onRenewalFailed", listener -> listener.onRenewalFailed(cause, attempt));
    }

    @Override
    public void onSlotLost(SlotLease lease) {
        call("onSlotLost", listener -> listener.onSlotLost(lease));
    }

    @Override
    public void onClockSkew(long skewMillis) {
        call("onClockSkew", listener -> listener.onClockSkew(skewMillis));
    }

    @Override
    public void onDuplicateOwnerKey(String key, int slot) {
        call("onDuplicateOwnerKey", listener -> listener.onDuplicateOwnerKey(key, slot));
    }

    @Override
    public void onExhausted(long earliestExpiry) {
        call("onExhausted", listener -> listener.onExhausted(earliestExpiry));
    }

    @Override
    public void onSegmentReserved(SegmentRange range) {
        call("onSegmentReserved", listener -> listener.onSegmentReserved(range));
    }

    @Override
    public void onSegmentFailed(String name, Throwable cause, int attempt) {
        call("onSegmentFailed", listener -> listener.onSegmentFailed(name, cause, attempt));
    }
}
