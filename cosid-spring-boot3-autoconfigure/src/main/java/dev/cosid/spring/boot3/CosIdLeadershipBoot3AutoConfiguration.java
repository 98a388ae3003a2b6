package dev.cosid.spring.boot3;

import dev.cosid.coordination.Role;
import dev.cosid.spring.boot.leadership.CosIdLeadership;
import dev.cosid.spring.boot.leadership.CosIdLeadershipAutoConfiguration;
import dev.cosid.spring.boot.leadership.LeadershipHealth;
import java.util.Iterator;
import java.util.Objects;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.CompositeHealthContributor;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.NamedContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code cosidLeadership} health of Spring Boot 3.5, whose health types have other packages than in 4.0: one
 * component per role, read as {@link LeadershipHealth} reads it. The electors, {@code @LeaderOnly}, the fenced
 * paths, the {@code leadership} endpoint and the meters are the starter's own auto-configuration, which runs on
 * both lines.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GET /actuator/health/cosidLeadership/billing
 * {"status":"UP","details":{"role":"billing","leading":false,"holder":"app@pod-1:8080",...}}
 * }</pre>
 */
@AutoConfiguration(after = CosIdLeadershipAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.cosid.coordination.Elector",
        "org.springframework.boot.actuate.health.HealthIndicator"})
@ConditionalOnBean(CosIdLeadership.class)
public class CosIdLeadershipBoot3AutoConfiguration {

    /** The health contributor of Spring Boot 3. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("cosid-leadership")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cosidLeadershipHealthContributor")
        CompositeHealthContributor cosidLeadershipHealthContributor(CosIdLeadership leadership) {
            return new RolesHealth(leadership);
        }
    }

    /** One indicator per role, as many as the leadership has now. */
    static final class RolesHealth implements CompositeHealthContributor {

        private final CosIdLeadership leadership;

        RolesHealth(CosIdLeadership leadership) {
            this.leadership = Objects.requireNonNull(leadership, "leadership");
        }

        @Override
        public HealthContributor getContributor(String name) {
            return leadership.roles().stream().anyMatch(role -> role.name().equals(name)) ? indicator(name) : null;
        }

        @Override
        public Iterator<NamedContributor<HealthContributor>> iterator() {
            return leadership.roles().stream().map(Role::name)
                    .map(name -> NamedContributor.<HealthContributor>of(name, indicator(name))).iterator();
        }

        private HealthIndicator indicator(String role) {
            return () -> {
                LeadershipHealth reading = LeadershipHealth.of(leadership, role);
                Health.Builder builder = reading.up() ? Health.up()
                        : Health.down().withDetail("reason", reading.reason());
                return builder.withDetails(reading.details()).build();
            };
        }
    }
}
