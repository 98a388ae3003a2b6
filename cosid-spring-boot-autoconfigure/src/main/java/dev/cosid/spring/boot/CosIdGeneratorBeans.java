package dev.cosid.spring.boot;

import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Registers one bean per generator configured under {@code cosid.generators.NAME}, named as CosId's
 * starter names them: {@code NAMESnowflakeId}, and one lazy bean per segment counter of
 * {@code cosid.segments.NAME} (or CosId's {@code cosid.segment.provider.NAME}): {@code NAMESegmentId}.
 * The default generators, {@code __share__SnowflakeId} and {@code __share__SegmentId}, are the primary
 * {@link SnowflakeId} and {@link SegmentId}, so a constructor that takes one gets them; a configured one
 * is injected by its bean name ({@code @Qualifier("orderSnowflakeId")}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // cosid.generators.order.layout: MILLISECOND
 * @Service
 * class Orders {
 *     Orders(SnowflakeId ids, @Qualifier("orderSnowflakeId") SnowflakeId orderIds) { ... }
 * }
 * }</pre>
 */
final class CosIdGeneratorBeans implements BeanDefinitionRegistryPostProcessor, EnvironmentAware {

    /** The suffix of a Snowflake generator's bean name, as CosId's starter writes it. */
    static final String SNOWFLAKE_SUFFIX = "SnowflakeId";
    /** The suffix of a segment generator's bean name, as CosId's starter writes it. */
    static final String SEGMENT_SUFFIX = "SegmentId";

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
        for (String name : names("cosid.generators", CosIdProperties.Generator.class)) {
            String bean = name + SNOWFLAKE_SUFFIX;
            if (name.equals(CosIdAutoConfiguration.SHARE) || registry.containsBeanDefinition(bean)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(SnowflakeId.class);
            definition.setInstanceSupplier(() -> ((BeanFactory) registry)
                    .getBean(CosIdGenerators.class).get(name));
            definition.setDestroyMethodName(null);
            registry.registerBeanDefinition(bean, definition);
        }

        Set<String> segments = new LinkedHashSet<>(names("cosid.segments", CosIdProperties.Segment.class));
        // CosId 2.x's cosid.segment.provider.NAME.step: bound as flat keys NAME.step
        for (String key : names("cosid.segment.provider", String.class)) {
            if (key.endsWith(".step")) {
                segments.add(key.substring(0, key.length() - ".step".length()));
            }
        }
        for (String name : segments) {
            String bean = name + SEGMENT_SUFFIX;
            if (name.equals(CosIdAutoConfiguration.SHARE) || registry.containsBeanDefinition(bean)) {
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(SegmentId.class);
            // lazy: the first range is reserved when the bean is first injected or used
            definition.setLazyInit(true);
            definition.setInstanceSupplier(() -> ((BeanFactory) registry).getBean(CosIdGenerators.class).segment(name));
            definition.setDestroyMethodName(null);
            registry.registerBeanDefinition(bean, definition);
        }
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }

    private Set<String> names(String prefix, Class<?> type) {
        return Binder.get(environment).bind(prefix, Bindable.mapOf(String.class, type))
                .map(Map::keySet).orElse(Set.of());
    }
}
