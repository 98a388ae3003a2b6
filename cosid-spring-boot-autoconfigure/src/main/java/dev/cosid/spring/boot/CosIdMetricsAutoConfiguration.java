package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.micrometer.CosIdMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The Micrometer meters of the runtime ({@link CosIdMetrics}), in the application's registry and so
 * on {@code /actuator/prometheus}: the meters listen to the keeper from the first acquisition on and
 * read the generators' counts when scraped, adding nothing to {@code nextId()}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid_ids_issued_total{generator="order",namespace="orders"} 1042.0
 * }</pre>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus.PrometheusMetricsExportAutoConfiguration"},
        before = CosIdAutoConfiguration.class)
@ConditionalOnClass({CosIdMetrics.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(name = "cosid.enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CosIdProperties.class)
public class CosIdMetricsAutoConfiguration {

    /**
     * Returns the meters; as a listener bean the runtime hears them from its first acquisition on.
     *
     * @param registry the application's registry
     * @param properties for the namespace tag
     * @return the meters
     */
    @Bean
    @ConditionalOnMissingBean
    public CosIdMetrics cosIdMetrics(MeterRegistry registry, CosIdProperties properties) {
        return new CosIdMetrics(registry, properties.getNamespace());
    }

    /**
     * Binds the gauges and generator counters once every bean exists, before the web server starts.
     *
     * @param metrics the meters
     * @param runtime the runtime, when there is one
     * @return the binding step
     */
    @Bean
    public SmartInitializingSingleton cosIdMetricsBinder(CosIdMetrics metrics, ObjectProvider<CosIdRuntime> runtime) {
        return () -> runtime.ifAvailable(metrics::bind);
    }
}
