package dev.cosid.spring.boot.leadership;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The leadership's {@code cosidLeadership} health (Spring Boot 4; {@code cosid-spring-boot3-autoconfigure} has the
 * Spring Boot 3.5 one) and its {@code leadership} actuator endpoint (both lines).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * management.endpoints.web.exposure.include: health,leadership
 * management.endpoint.health.show-details: always
 * }</pre>
 */
@AutoConfiguration(after = CosIdLeadershipAutoConfiguration.class)
@ConditionalOnClass(name = "dev.cosid.coordination.Elector")
@ConditionalOnBean(CosIdLeadership.class)
public class CosIdLeadershipActuatorAutoConfiguration {

    /** The health contributor, where Spring Boot 4's health module is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("cosid-leadership")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cosidLeadershipHealthContributor")
        CosIdLeadershipHealthContributor cosidLeadershipHealthContributor(CosIdLeadership leadership) {
            return new CosIdLeadershipHealthContributor(leadership);
        }
    }

    /** The endpoint, where the actuator is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
    @ConditionalOnAvailableEndpoint(CosIdLeadershipEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        CosIdLeadershipEndpoint cosIdLeadershipEndpoint(CosIdLeadership leadership) {
            return new CosIdLeadershipEndpoint(leadership);
        }
    }
}
