package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.SegmentPolicy;
import dev.cosid.SnowflakeId;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The generators of the application's runtime by name: those configured under
 * {@code cosid.generators.NAME} with their layouts, and any other name with the default layout; and the
 * segment generators, with the policies of {@code cosid.segments.NAME}.
 *
 * <p>{@link #get(String)} and {@link #segment(String)} create a generator for a name the application's code
 * chooses. A name that comes from a request goes through {@link #configured(String)}, which never creates
 * one: otherwise any caller could create id spaces without bound.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @RestController
 * class Orders {
 *     private final CosIdGenerators generators;
 *     Orders(CosIdGenerators generators) {
 *         this.generators = generators;
 *     }
 *     @GetMapping("/ids/{name}")
 *     ResponseEntity<?> next(@PathVariable String name) {
 *         return generators.configured(name).<ResponseEntity<?>>map(ids -> ResponseEntity.ok(ids.nextId()))
 *                 .orElse(ResponseEntity.notFound().build());
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
     * @param name the counter, of the rule of {@link dev.cosid.lease.Names}
     * @return the generator with the policy of {@code cosid.segments.NAME}, or the runtime's default policy
     * @throws IllegalArgumentException when the name breaks the rule
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
     * Returns the generator of an id space, creating it with the default layout when it is not configured.
     * For a name from a request, use {@link #configured(String)}.
     *
     * @param name the id space, of the rule of {@link dev.cosid.lease.Names}
     * @return the configured generator of that name, or the runtime's generator with the default layout
     * @throws IllegalArgumentException when the name breaks the rule
     */
    public SnowflakeId get(String name) {
        Objects.requireNonNull(name, "name");
        SnowflakeId generator = configured.get(name);
        return generator != null ? generator : runtime.snowflake(name);
    }

    /**
     * Returns the generator of an id space configured under {@code cosid.generators.NAME}, and creates none:
     * what a controller serving a name from a request calls.
     *
     * @param name any text, such as a path variable
     * @return the configured generator, or empty for any other name
     */
    public Optional<SnowflakeId> configured(String name) {
        return Optional.ofNullable(name == null ? null : configured.get(name));
    }

    /** Returns the names configured under {@code cosid.generators}. */
    public Set<String> configuredNames() {
        return configured.keySet();
    }
}
