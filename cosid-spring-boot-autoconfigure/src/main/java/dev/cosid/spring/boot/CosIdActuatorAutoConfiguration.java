package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code cosid} health indicator and actuator endpoint of Spring Boot 4.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * management.endpoints.web.exposure.include: health,cosid
 * management.endpoint.health.show-details: always
 * }</pre>
 */
@AutoConfiguration(after = CosIdAutoConfiguration.class)
@ConditionalOnBean(CosIdRuntime.class)
public class CosIdActuatorAutoConfiguration {

    /** The health indicator, where Spring Boot 4's health module is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("cosid")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cosidHealthIndicator")
        CosIdHealthIndicator cosidHealthIndicator(CosIdRuntime runtime) {
            return new CosIdHealthIndicator(runtime);
        }
    }

    /** The endpoint, where the actuator is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
    @ConditionalOnAvailableEndpoint(CosIdEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        CosIdEndpoint cosIdEndpoint(CosIdRuntime runtime) {
            return new CosIdEndpoint(runtime);
        }
    }
}
