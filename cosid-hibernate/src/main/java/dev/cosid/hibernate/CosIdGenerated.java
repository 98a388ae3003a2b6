package dev.cosid.hibernate;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Generates an entity's {@code long} or {@code Long} id from a named CosId generator when the entity
 * is inserted: no database sequence and no round trip.
 *
 * <p>Hibernate finds the runtime in the setting {@link #RUNTIME_SETTING}; the Spring Boot starter sets
 * it to the application's runtime. The name is an id space, like a table name; every entity that
 * names the same generator shares its ids.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Entity
 * public class Order {
 *     @Id
 *     @CosIdGenerated("order")
 *     private Long id;
 * }
 * @Entity
 * public class Invoice {
 *     @Id
 *     @CosIdGenerated(value = "invoice", segment = true)   // 1, 2, 3, ... from the counter "invoice"
 *     private Long number;
 * }
 * // without Spring Boot: settings.put(CosIdGenerated.RUNTIME_SETTING, runtime);
 * }</pre>
 */
@Documented
@IdGeneratorType(CosIdIdentifierGenerator.class)
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD})
public @interface CosIdGenerated {

    /** The Hibernate setting that holds the {@link dev.cosid.CosIdRuntime} the ids come from. */
    String RUNTIME_SETTING = "dev.cosid.hibernate.runtime";

    /** Returns the name of the generator, its id space. */
    String value();

    /**
     * Returns the layout preset ({@code MILLISECOND}, {@code SECOND}, {@code SAFE_JS_MILLISECOND},
     * {@code SAFE_JS_SECOND}); empty (the default) takes the generator's layout if the runtime has one
     * of that name already, else {@code MILLISECOND}.
     */
    String layout() default "";

    /**
     * Returns whether the id comes from the segment counter of this name ({@code runtime.segment(name)}):
     * dense increasing numbers instead of Snowflake ids; default false. A segment takes no layout.
     */
    boolean segment() default false;

    /**
     * The Hibernate setting that may hold a {@code java.util.function.Function<String, SegmentId>}: how a
     * segment name becomes its generator. The Spring Boot starter sets it, so the policy of
     * {@code cosid.segments.NAME} applies; without it the runtime's {@code segment(name)} is used.
     */
    String SEGMENTS_SETTING = "dev.cosid.hibernate.segments";
}
