package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.Role;
import java.util.Objects;
import java.util.stream.Stream;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code cosidLeadership} health of Spring Boot 4: one component per role ({@link LeadershipHealth}), so
 * {@code /actuator/health/cosidLeadership/billing} answers for role {@code billing}. A role a lazy bean's
 * {@code @LeaderOnly} names later appears when it is named.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GET /actuator/health/cosidLeadership
 * {"status":"UP","components":{"billing":{"status":"UP","details":{"leading":true,"holder":"app@pod-1:8080",...}}}}
 * }</pre>
 */
public class CosIdLeadershipHealthContributor implements CompositeHealthContributor {

    private final CosIdLeadership leadership;

    /**
     * Creates the contributor.
     *
     * @param leadership the application's leadership
     */
    public CosIdLeadershipHealthContributor(CosIdLeadership leadership) {
        this.leadership = Objects.requireNonNull(leadership, "leadership");
    }

    @Override
    public HealthContributor getContributor(String name) {
        if (!LeadershipSettings.isRoleName(name) || !leadership.roles().contains(Role.of(name))) {
            return null;
        }
        return indicator(name);
    }

    @Override
    public Stream<Entry> stream() {
        return leadership.roles().stream().map(role -> new Entry(role.name(), indicator(role.name())));
    }

    private HealthIndicator indicator(String role) {
        return () -> {
            LeadershipHealth reading = LeadershipHealth.of(leadership, role);
            Health.Builder builder = reading.up() ? Health.up() : Health.down().withDetail("reason", reading.reason());
            return builder.withDetails(reading.details()).build();
        };
    }
}
