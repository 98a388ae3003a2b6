package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.RuntimeStatus;
import dev.cosid.lease.SlotLease;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One health reading of a runtime, independent of Spring Boot's health API: up while a bound window
 * covers now; down, with the reason, when the lease is lost, the ceiling has passed, the floor is not
 * passed yet, or the runtime is closed.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CosIdHealth health = CosIdHealth.of(runtime);
 * if (!health.up()) {
 *     log.warn(health.reason());
 * }
 * }</pre>
 *
 * @param up whether an id can be issued now
 * @param reason why not, or an empty string
 * @param details namespace, state, slot, fence, owner, window, expiry, remaining window, clock skew, and when
 *     the first of the runtime's layouts runs out with the seconds left ({@code layoutRunsOutAt}, {@code runwaySeconds})
 */
public record CosIdHealth(boolean up, String reason, Map<String, Object> details) {

    /**
     * Reads the runtime's status; reads no store.
     *
     * @param runtime the runtime
     * @return the reading
     */
    public static CosIdHealth of(CosIdRuntime runtime) {
        RuntimeStatus status = runtime.status();
        SlotLease lease = status.lease();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("namespace", status.namespace());
        details.put("state", status.state().name());
        details.put("slot", lease.slot());
        details.put("static", status.staticSlot());
        details.put("fence", lease.fence());
        details.put("owner", status.owner().key());
        Map<String, Object> window = new LinkedHashMap<>();
        window.put("floor", Instant.ofEpochMilli(lease.floor()).toString());
        window.put("ceiling", Instant.ofEpochMilli(lease.ceiling()).toString());
        details.put("window", window);
        details.put("expiresAt", Instant.ofEpochMilli(lease.expiresAt()).toString());
        details.put("windowRemainingMillis", status.windowRemainingMillis());
        details.put("clockSkewMillis", status.clockSkewMillis());
        details.put("layoutRunsOutAt", Instant.ofEpochMilli(status.layoutRunsOutAt()).toString());
        details.put("runwaySeconds", status.runwayMillis() / 1000);
        boolean up = status.canIssue();
        return new CosIdHealth(up, up ? "" : status.problem(), Map.copyOf(details));
    }
}
