package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;

/**
 * Changes the runtime's builder after the {@code cosid.*} properties are applied and before it starts;
 * every bean of this type is applied, in order.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Bean
 * CosIdRuntimeCustomizer slowerRenewals() {
 *     return builder -> builder.ttl(Duration.ofMinutes(1));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface CosIdRuntimeCustomizer {

    /**
     * Changes the builder.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(CosIdRuntime.Builder builder);
}
