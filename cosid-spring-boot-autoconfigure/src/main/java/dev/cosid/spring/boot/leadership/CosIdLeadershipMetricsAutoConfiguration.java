package dev.cosid.spring.boot.leadership;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The leadership's meters ({@link CosIdLeadershipMetrics}) in the application's registry, and so on
 * {@code /actuator/prometheus}; as an election listener bean, the electors report to them from their first step.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid_leadership_held{role="billing"} 1.0
 * }</pre>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration"},
        before = CosIdLeadershipAutoConfiguration.class)
@ConditionalOnClass(name = {"dev.cosid.coordination.Elector", "io.micrometer.core.instrument.MeterRegistry"})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(name = CosIdLeadershipAutoConfiguration.ENABLED, havingValue = "true")
public class CosIdLeadershipMetricsAutoConfiguration {

    /**
     * Returns the meters.
     *
     * @param registry the application's registry
     * @return the meters, an election listener
     */
    @Bean
    @ConditionalOnMissingBean
    public CosIdLeadershipMetrics cosIdLeadershipMetrics(MeterRegistry registry) {
        return new CosIdLeadershipMetrics(registry);
    }
}
