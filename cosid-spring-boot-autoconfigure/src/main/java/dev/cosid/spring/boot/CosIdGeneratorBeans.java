package dev.cosid.spring.boot;

import dev.cosid.SnowflakeId;
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
 * starter names them: {@code NAMESnowflakeId}. The default generator, {@code __share__SnowflakeId}, is
 * the primary {@link SnowflakeId}, so a constructor that takes a {@code SnowflakeId} gets it; a
 * configured one is injected by its bean name ({@code @Qualifier("orderSnowflakeId")}).
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
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
    }

    private Set<String> names(String prefix, Class<?> type) {
        return Binder.get(environment).bind(prefix, Bindable.mapOf(String.class, type))
                .map(Map::keySet).orElse(Set.of());
    }
}
