package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.hibernate.CosIdGenerated;
import java.util.function.Function;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * Hands the runtime to Hibernate (Spring Boot 4, Hibernate ORM 7), so entity ids marked
 * {@link CosIdGenerated} come from its named generators; no database sequence is needed.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Entity
 * class Order {
 *     @Id @CosIdGenerated("order") Long id;
 * }
 * }</pre>
 */
@AutoConfiguration(after = CosIdAutoConfiguration.class,
        beforeName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass(name = {"dev.cosid.hibernate.CosIdGenerated",
        "org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer"})
@ConditionalOnBean(CosIdRuntime.class)
public class CosIdHibernateAutoConfiguration {

    /**
     * Puts the runtime into Hibernate's settings, and the segment generators with their
     * {@code cosid.segments.NAME} policies.
     *
     * @param runtime the runtime
     * @param generators the generators by name
     * @return the customizer
     */
    @Bean
    public HibernatePropertiesCustomizer cosIdHibernatePropertiesCustomizer(CosIdRuntime runtime,
                                                                            CosIdGenerators generators) {
        return properties -> {
            properties.put(CosIdGenerated.RUNTIME_SETTING, runtime);
            properties.put(CosIdGenerated.SEGMENTS_SETTING, (Function<String, SegmentId>) generators::segment);
        };
    }
}
