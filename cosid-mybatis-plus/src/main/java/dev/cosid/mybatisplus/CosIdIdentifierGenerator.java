package dev.cosid.mybatisplus;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SnowflakeId;
import dev.cosid.spring.boot.CosIdGenerators;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A MyBatis-Plus {@link IdentifierGenerator} whose ids come from the application's CosId runtime: the
 * ids of {@code @TableId(type = IdType.ASSIGN_ID)} (and {@code IdWorker.getId()}) are Snowflake ids of a
 * leased slot, never a slot guessed from MAC and IP addresses; an entity mapped to a segment counter
 * gets that counter's dense increasing numbers instead.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // cosid.store: datasource
 * // cosid.mybatis-plus.segments.Invoice: invoice
 * @TableName("orders")
 * public class Order {
 *     @TableId(type = IdType.ASSIGN_ID)   // a Snowflake id of this instance's slot
 *     private Long id;
 * }
 * }</pre>
 */
public final class CosIdIdentifierGenerator implements IdentifierGenerator {

    /** The epoch of MyBatis-Plus's {@code Sequence} ({@code DefaultIdentifierGenerator}): 2010-11-04T01:42:54.657Z. */
    public static final long MYBATIS_PLUS_EPOCH_MILLIS = 1_288_834_974_657L;

    /**
     * MyBatis-Plus's own cut, 41 timestamp bits from its epoch over 22 low bits (here 10 slot and 12
     * sequence bits, there 5 + 5 worker and 12 sequence bits): ids continue above every id MyBatis-Plus
     * issued before, so a table's primary keys keep their order and never meet an old one.
     */
    public static final IdLayout MYBATIS_PLUS_LAYOUT = new IdLayout(MYBATIS_PLUS_EPOCH_MILLIS, 1, 41, 10, 12);

    private final CosIdGenerators generators;
    private final SnowflakeId snowflake;
    /** Entity class name (simple or qualified, lower case) to its segment counter. */
    private final Map<String, String> segments;
    private final Map<Class<?>, LongSupplier> byClass = new ConcurrentHashMap<>();

    /**
     * Creates the generator.
     *
     * @param runtime the runtime
     * @param generators the runtime's generators
     * @param generator the Snowflake id space of every entity without a segment: a configured
     *     {@code cosid.generators.NAME} with its layout, or any other name with {@link #MYBATIS_PLUS_LAYOUT}
     * @param segments entity class name (simple or fully qualified, any case) to segment counter
     */
    public CosIdIdentifierGenerator(CosIdRuntime runtime, CosIdGenerators generators, String generator,
                                    Map<String, String> segments) {
        this.generators = Objects.requireNonNull(generators, "generators");
        Objects.requireNonNull(generator, "generator");
        // a configured generator keeps its layout; any other name takes MyBatis-Plus's cut
        this.snowflake = generators.configuredNames().contains(generator) ? generators.get(generator)
                : runtime.snowflake(generator, MYBATIS_PLUS_LAYOUT);
        Map<String, String> keyed = new ConcurrentHashMap<>();
        segments.forEach((entity, counter) -> keyed.put(entity.toLowerCase(Locale.ROOT), counter));
        this.segments = Map.copyOf(keyed);
    }

    @Override
    public Number nextId(Object entity) {
        Class<?> type = entity == null ? Object.class : entity.getClass();
        return byClass.computeIfAbsent(type, this::source).getAsLong();
    }

    /** Returns the segment counter of an entity class, or null for the Snowflake id space. */
    String segmentOf(Class<?> type) {
        String counter = segments.get(type.getName().toLowerCase(Locale.ROOT));
        return counter != null ? counter : segments.get(type.getSimpleName().toLowerCase(Locale.ROOT));
    }

    private LongSupplier source(Class<?> type) {
        String counter = segmentOf(type);
        if (counter == null) {
            return snowflake::nextId;
        }
        // the counter's first range is reserved on the first insert of the entity
        return generators.segment(counter)::nextId;
    }
}
