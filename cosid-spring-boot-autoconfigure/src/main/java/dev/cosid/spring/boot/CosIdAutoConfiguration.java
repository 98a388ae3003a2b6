package dev.cosid.spring.boot;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.redis.RedisLeaseStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Starts one CosId runtime from the {@code cosid.*} properties, holds its slot before the web server
 * takes traffic and releases it after the web server has stopped ({@link CosIdLifecycle}).
 *
 * <p>The store is a URL, or the application's own {@code DataSource} ({@code cosid.store=datasource})
 * or Spring Data Redis connection ({@code cosid.store=redis}). It applies after the DataSource and
 * Redis auto-configurations of Spring Boot 4 and 3.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @RestController
 * class Ids {
 *     private final SnowflakeId ids;
 *     Ids(SnowflakeId ids) { this.ids = ids; } // __share__SnowflakeId; or generators.get("order")
 *     @GetMapping("/id") long next() { return ids.nextId(); }
 * }
 * }</pre>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@ConditionalOnProperty(name = "cosid.enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CosIdProperties.class)
public class CosIdAutoConfiguration {

    /** The id space of the default generators, named as CosId's shared generator: {@code __share__}. */
    public static final String SHARE = "__share__";

    /**
     * Starts the runtime: its slot is held from here on.
     *
     * @param properties the cosid.* properties
     * @param environment where CosId 2.x keys are looked for
     * @param sources the application's connections a store can use
     * @param listeners every CosIdListener bean, meters included
     * @param customizers changes to the builder
     * @return the lifecycle that holds the runtime
     */
    @Bean
    @ConditionalOnMissingBean
    public CosIdLifecycle cosIdLifecycle(CosIdProperties properties, ConfigurableEnvironment environment,
                                         ObjectProvider<CosIdStoreSource> sources,
                                         ObjectProvider<CosIdListener> listeners,
                                         ObjectProvider<CosIdRuntimeCustomizer> customizers) {
        CosIdListener listener = CosIdListener.all(listeners.orderedStream().toArray(CosIdListener[]::new));
        return new CosIdRuntimeFactory(properties, environment, sources.orderedStream().toList())
                .start(listener, customizers.orderedStream().toList());
    }

    /**
     * Returns the running runtime; the lifecycle closes it.
     *
     * @param lifecycle the holder
     * @return the runtime
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public CosIdRuntime cosIdRuntime(CosIdLifecycle lifecycle) {
        return lifecycle.runtime();
    }

    /**
     * Returns the generators by name, with the layouts of {@code cosid.generators}.
     *
     * @param runtime the runtime
     * @param properties the properties
     * @return the generators
     */
    @Bean
    @ConditionalOnMissingBean
    public CosIdGenerators cosIdGenerators(CosIdRuntime runtime, CosIdProperties properties,
                                           ObjectProvider<CosIdLifecycle> lifecycle) {
        CosIdLifecycle holder = lifecycle.getIfAvailable();
        return CosIdRuntimeFactory.generators(runtime, properties,
                holder != null ? holder.segmentPolicies() : java.util.Map.of());
    }

    /**
     * Returns the default Snowflake generator, id space {@code __share__} with the runtime's default layout,
     * named {@code __share__SnowflakeId} as in CosId's starter: the primary {@link SnowflakeId}, injected by type.
     *
     * @param generators the generators
     * @return the generator
     */
    @Bean(name = SHARE + CosIdGeneratorBeans.SNOWFLAKE_SUFFIX, destroyMethod = "")
    @Primary
    @ConditionalOnMissingBean(name = SHARE + CosIdGeneratorBeans.SNOWFLAKE_SUFFIX)
    public SnowflakeId shareSnowflakeId(CosIdGenerators generators) {
        return generators.get(SHARE);
    }

    /**
     * Returns the default segment generator, counter {@code __share__}, named {@code __share__SegmentId} as in
     * CosId's starter: the primary {@link SegmentId}, injected by type. It is lazy: its first range is reserved
     * when it is first injected or used, so an application without segment ids reserves nothing.
     *
     * @param generators the generators
     * @return the generator
     */
    @Bean(name = SHARE + CosIdGeneratorBeans.SEGMENT_SUFFIX, destroyMethod = "")
    @Primary
    @Lazy
    @ConditionalOnMissingBean(name = SHARE + CosIdGeneratorBeans.SEGMENT_SUFFIX)
    public SegmentId shareSegmentId(CosIdGenerators generators) {
        return generators.segment(SHARE);
    }

    /**
     * Registers {@code NAMESnowflakeId} for each {@code cosid.generators.NAME} and {@code NAMESegmentId} for
     * each {@code cosid.segments.NAME}.
     *
     * @return the registrar
     */
    @Bean
    static CosIdGeneratorBeans cosIdGeneratorBeans() {
        return new CosIdGeneratorBeans();
    }

    /** {@code cosid.store=datasource}: the application's DataSource. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({JdbcLeaseStore.class, DataSource.class})
    @ConditionalOnBean(DataSource.class)
    static class DataSourceStore {

        @Bean
        CosIdStoreSource cosIdDataSourceStore(ObjectProvider<DataSource> dataSource) {
            return new CosIdStoreSource() {
                @Override
                public String name() {
                    return "datasource";
                }

                @Override
                public LeaseStore open() {
                    return JdbcLeaseStore.on(dataSource.getObject());
                }
            };
        }
    }

    /** {@code cosid.store=redis}: a connection of its own from the application's Lettuce client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RedisLeaseStore.class, LettuceConnectionFactory.class})
    @ConditionalOnBean(LettuceConnectionFactory.class)
    static class RedisStore {

        @Bean
        CosIdStoreSource cosIdRedisStore(ObjectProvider<LettuceConnectionFactory> factory) {
            return new CosIdStoreSource() {
                @Override
                public String name() {
                    return "redis";
                }

                @Override
                public LeaseStore open() {
                    LettuceConnectionFactory connections = factory.getObject();
                    if (!connections.isRunning()) {
                        connections.start();
                    }
                    AbstractRedisClient client = connections.getNativeClient();
                    if (!(client instanceof RedisClient standalone)) {
                        throw new IllegalStateException("the application's Redis client is a "
                                + client.getClass().getSimpleName() + "; the CosId Redis store needs a standalone or "
                                + "Sentinel client (a cluster's keys of one namespace would work, but its client "
                                + "type is another); set cosid.store to a redis:// URL instead");
                    }
                    return RedisLeaseStore.on(standalone, "the application's Redis at " + connections.getHostName()
                            + ":" + connections.getPort() + "/" + connections.getDatabase());
                }
            };
        }
    }
}
