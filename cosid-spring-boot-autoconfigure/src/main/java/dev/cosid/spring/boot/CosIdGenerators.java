package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The generators of the application's runtime by name: those configured under
 * {@code cosid.generators.NAME} with their layouts, and any other name with the default layout.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @RestController
 * class Orders {
 *     private final SnowflakeId ids;
 *     Orders(CosIdGenerators generators) {
 *         this.ids = generators.get("order");
 *     }
 * }
 * }</pre>
 */
public final class CosIdGenerators {

    private final CosIdRuntime runtime;
    private final Map<String, SnowflakeId> configured;

    CosIdGenerators(CosIdRuntime runtime, Map<String, SnowflakeId> configured) {
        this.runtime = runtime;
        this.configured = Map.copyOf(configured);
    }

    /**
     * Returns the generator of an id space.
     *
     * @param name the id space
     * @return the configured generator of that name, or the runtime's generator with the default layout
     */
    public SnowflakeId get(String name) {
        Objects.requireNonNull(name, "name");
        SnowflakeId generator = configured.get(name);
        return generator != null ? generator : runtime.snowflake(name);
    }

    /** Returns the names configured under {@code cosid.generators}. */
    public Set<String> configuredNames() {
        return configured.keySet();
    }
}
