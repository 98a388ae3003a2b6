package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.SegmentPolicy;
import dev.cosid.SnowflakeId;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The generators of the application's runtime by name: those configured under
 * {@code cosid.generators.NAME} with their layouts, and any other name with the default layout; and the
 * segment generators, with the policies of {@code cosid.segments.NAME}.
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
    private final Map<String, SegmentPolicy> segmentPolicies;

    CosIdGenerators(CosIdRuntime runtime, Map<String, SnowflakeId> configured, Map<String, SegmentPolicy> segmentPolicies) {
        this.runtime = runtime;
        this.configured = Map.copyOf(configured);
        this.segmentPolicies = Map.copyOf(segmentPolicies);
    }

    /**
     * Returns the segment generator of a counter; its first range is reserved on the first call.
     *
     * @param name the counter
     * @return the generator with the policy of {@code cosid.segments.NAME}, or the runtime's default policy
     */
    public SegmentId segment(String name) {
        Objects.requireNonNull(name, "name");
        SegmentPolicy policy = segmentPolicies.get(name);
        return policy != null ? runtime.segment(name, policy) : runtime.segment(name);
    }

    /** Returns the names configured under {@code cosid.segments} (and CosId's {@code cosid.segment.provider}). */
    public Set<String> segmentNames() {
        return segmentPolicies.keySet();
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
