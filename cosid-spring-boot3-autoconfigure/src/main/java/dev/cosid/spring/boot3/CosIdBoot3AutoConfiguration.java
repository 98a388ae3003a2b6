package dev.cosid.spring.boot3;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.hibernate.CosIdGenerated;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import dev.cosid.spring.boot.CosIdGenerators;
import dev.cosid.spring.boot.CosIdHealth;
import java.util.function.Function;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.orm.jpa.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What Spring Boot 3.5 needs beside {@code cosid-spring-boot-starter}: the {@code cosid} health indicator
 * and the Hibernate ORM 6 settings, whose Spring Boot types have other packages than in 4.0. Everything
 * else (properties, lifecycle, store, endpoint, meters, Jackson 2, the failure analysis) is the starter's
 * own auto-configuration, which runs on both lines.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * <dependency><groupId>dev.cosid</groupId><artifactId>cosid-spring-boot3-autoconfigure</artifactId></dependency>
 * }</pre>
 */
@AutoConfiguration(after = CosIdAutoConfiguration.class,
        beforeName = "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration")
@ConditionalOnBean(CosIdRuntime.class)
public class CosIdBoot3AutoConfiguration {

    /** The health indicator of Spring Boot 3. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("cosid")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "cosidHealthIndicator")
        HealthIndicator cosidHealthIndicator(CosIdRuntime runtime) {
            return () -> {
                CosIdHealth reading = CosIdHealth.of(runtime);
                Health.Builder builder = reading.up() ? Health.up() : Health.down().withDetail("reason", reading.reason());
                return builder.withDetails(reading.details()).build();
            };
        }
    }

    /** Hibernate ORM 6 under Spring Boot 3: the runtime in the settings {@link CosIdGenerated} reads. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"dev.cosid.hibernate.CosIdGenerated",
            "org.springframework.boot.autoconfigure.orm.jpa.HibernatePropertiesCustomizer"})
    static class HibernateConfiguration {

        @Bean
        HibernatePropertiesCustomizer cosIdHibernatePropertiesCustomizer(CosIdRuntime runtime,
                                                                         CosIdGenerators generators) {
            return properties -> {
                properties.put(CosIdGenerated.RUNTIME_SETTING, runtime);
                properties.put(CosIdGenerated.SEGMENTS_SETTING, (Function<String, SegmentId>) generators::segment);
            };
        }
    }
}
