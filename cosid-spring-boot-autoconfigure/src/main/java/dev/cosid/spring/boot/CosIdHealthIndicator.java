package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code cosid} health of Spring Boot 4: UP while a bound window covers now, DOWN with the reason
 * when the lease is lost, the ceiling has passed or the runtime is closed; details as {@link CosIdHealth}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GET /actuator/health/cosid
 * {"status":"UP","details":{"namespace":"orders","slot":3,"fence":7,"window":{...},"clockSkewMillis":2,...}}
 * }</pre>
 */
public class CosIdHealthIndicator implements HealthIndicator {

    private final CosIdRuntime runtime;

    /**
     * Creates the indicator.
     *
     * @param runtime the runtime it reports on
     */
    public CosIdHealthIndicator(CosIdRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    @Override
    public Health health() {
        CosIdHealth reading = CosIdHealth.of(runtime);
        Health.Builder builder = reading.up() ? Health.up() : Health.down().withDetail("reason", reading.reason());
        return builder.withDetails(reading.details()).build();
    }
}
