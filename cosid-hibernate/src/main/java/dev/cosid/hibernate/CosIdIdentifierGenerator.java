package dev.cosid.hibernate;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.hibernate.engine.config.spi.ConfigurationService;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.AnnotationBasedGenerator;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;

/**
 * The Hibernate generator behind {@link CosIdGenerated}: takes each new id from a named generator of
 * the runtime in the setting {@link CosIdGenerated#RUNTIME_SETTING}, or from its segment counter of that
 * name with {@code segment = true}.
 *
 * <p>Hibernate creates it once per entity id when the session factory is built; a missing runtime or
 * an id that is not a {@code long} stops that build with a message naming the entity.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Id @CosIdGenerated("order") private Long id;   // Hibernate creates this generator for it
 * }</pre>
 */
public final class CosIdIdentifierGenerator implements BeforeExecutionGenerator, AnnotationBasedGenerator<CosIdGenerated> {

    private static final long serialVersionUID = 1L;

    private transient LongSupplier ids;

    /** Creates the generator; Hibernate then calls {@link #initialize}, in ORM 6.6 and 7 alike. */
    public CosIdIdentifierGenerator() {
    }

    /**
     * Binds the generator of one entity id; Hibernate calls this once, when it builds the session factory.
     *
     * @param config the annotation on the id
     * @param member the id field or getter
     * @param context where the settings are
     * @throws IllegalArgumentException when the id is not a {@code long}, the runtime is missing, or the layout is unknown
     */
    @Override
    public void initialize(CosIdGenerated config, Member member, GeneratorCreationContext context) {
        String where = member.getDeclaringClass().getName() + "." + member.getName();
        Class<?> type = member instanceof Field field ? field.getType()
                : member instanceof Method method ? method.getReturnType() : Object.class;
        if (type != Long.class && type != Long.TYPE) {
            throw new IllegalArgumentException("@CosIdGenerated on " + where + " needs a long or Long id, not "
                    + type.getName());
        }
        Map<String, Object> settings = context.getServiceRegistry().requireService(ConfigurationService.class)
                .getSettings();
        Object runtime = settings.get(CosIdGenerated.RUNTIME_SETTING);
        if (!(runtime instanceof CosIdRuntime cosid)) {
            throw new IllegalArgumentException("@CosIdGenerated(\"" + config.value() + "\") on " + where
                    + " finds no CosIdRuntime in the Hibernate setting '" + CosIdGenerated.RUNTIME_SETTING + "' (found "
                    + (runtime == null ? "nothing" : runtime.getClass().getName())
                    + "); put the runtime there, or use the CosId Spring Boot starter");
        }
        if (config.segment()) {
            if (!config.layout().isEmpty()) {
                throw new IllegalArgumentException("@CosIdGenerated(value = \"" + config.value() + "\", segment = true) on "
                        + where + " takes no layout ('" + config.layout() + "'): segment ids are plain numbers");
            }
            SegmentId segment = segment(cosid, settings.get(CosIdGenerated.SEGMENTS_SETTING), config.value());
            this.ids = segment::nextId;
        } else {
            SnowflakeId snowflake = generator(cosid, config, where);
            this.ids = snowflake::nextId;
        }
    }

    @SuppressWarnings("unchecked")
    private static SegmentId segment(CosIdRuntime runtime, Object source, String name) {
        if (source instanceof Function<?, ?> function) {
            return ((Function<String, SegmentId>) function).apply(name);
        }
        return runtime.segments().stream().filter(s -> s.name().equals(name)).findFirst()
                .orElseGet(() -> runtime.segment(name));
    }

    private static SnowflakeId generator(CosIdRuntime runtime, CosIdGenerated config, String where) {
        if (!config.layout().isEmpty()) {
            IdLayout layout;
            try {
                layout = IdLayout.preset(config.layout());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("@CosIdGenerated on " + where + ": " + e.getMessage(), e);
            }
            return runtime.snowflake(config.value(), layout);
        }
        return runtime.generators().stream().filter(g -> g.name().equals(config.value())).findFirst()
                .orElseGet(() -> runtime.snowflake(config.value()));
    }

    @Override
    public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
                           EventType eventType) {
        if (ids == null) {
            throw new IllegalStateException("this CosId generator was never initialized by Hibernate");
        }
        return ids.getAsLong();
    }

    @Override
    public EnumSet<EventType> getEventTypes() {
        return EventTypeSets.INSERT_ONLY;
    }
}
