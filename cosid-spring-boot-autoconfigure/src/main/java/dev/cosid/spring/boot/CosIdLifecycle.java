package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentPolicy;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Orders the runtime around the web server: the slot is held from the creation of the beans, before
 * the web server starts to take traffic, and released with the exact last issued millisecond only
 * after the web server has stopped, so no request that is still served can be refused for a closed
 * runtime.
 *
 * <p>Spring starts lifecycles by ascending phase and stops them by descending phase; the web server
 * starts and stops at {@code Integer.MAX_VALUE - 2048} and its graceful shutdown runs at
 * {@code Integer.MAX_VALUE - 1024}, so {@link #PHASE} lies below both.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // nothing to call: the auto-configuration registers it; context.close() releases the slot
 * }</pre>
 */
public final class CosIdLifecycle implements SmartLifecycle, DisposableBean {

    /** Below the web server's phases: started before it, stopped after it. */
    public static final int PHASE = Integer.MAX_VALUE - 4096;

    private final CosIdRuntime runtime;
    private final List<AutoCloseable> afterClose;
    private final Map<String, SegmentPolicy> segmentPolicies;
    private volatile boolean running;
    private boolean closed;

    CosIdLifecycle(CosIdRuntime runtime, List<AutoCloseable> afterClose, Map<String, SegmentPolicy> segmentPolicies) {
        this.runtime = runtime;
        this.afterClose = List.copyOf(afterClose);
        this.segmentPolicies = Map.copyOf(segmentPolicies);
    }

    /** Returns the checked policies of {@code cosid.segments.NAME}. */
    Map<String, SegmentPolicy> segmentPolicies() {
        return segmentPolicies;
    }

    /** Returns the runtime this lifecycle holds. */
    public CosIdRuntime runtime() {
        return runtime;
    }

    @Override
    public void start() {
        if (runtime.status().state() == dev.cosid.RuntimeStatus.State.CLOSED) {
            throw new IllegalStateException("the CosId runtime of namespace '" + runtime.namespace()
                    + "' was closed when the context stopped; a closed runtime does not start again");
        }
        running = true;
    }

    @Override
    public void stop() {
        close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public void destroy() {
        close();
    }

    private synchronized void close() {
        running = false;
        if (closed) {
            return;
        }
        closed = true;
        runtime.close();
        for (AutoCloseable closeable : afterClose) {
            try {
                closeable.close();
            } catch (Exception e) {
                LoggerFactory.getLogger(CosIdLifecycle.class).warn("cannot close {} after the CosId runtime", closeable, e);
            }
        }
    }
}
