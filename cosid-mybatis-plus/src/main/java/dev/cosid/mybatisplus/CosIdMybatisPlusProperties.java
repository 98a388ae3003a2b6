package dev.cosid.mybatisplus;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code cosid.mybatis-plus.*}: where MyBatis-Plus's {@code ASSIGN_ID} ids come from.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid:
 *   mybatis-plus:
 *     generator: mybatis-plus       # the Snowflake id space of every entity
 *     segments:
 *       Invoice: invoice            # entity class (simple or qualified name) -> segment counter
 * }</pre>
 */
@ConfigurationProperties("cosid.mybatis-plus")
public class CosIdMybatisPlusProperties {

    /** Whether to register the CosId IdentifierGenerator. */
    private boolean enabled = true;

    /**
     * The Snowflake id space of every entity without a segment: a cosid.generators.NAME with its layout, or any
     * other name with MyBatis-Plus's own cut (41 + 10 + 12 bits from 2010-11-04), above every id it issued.
     */
    private String generator = "mybatis-plus";

    /** Entity class names (simple or fully qualified) whose ids come from a segment counter, to that counter's name. */
    private final Map<String, String> segments = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getGenerator() {
        return generator;
    }

    public void setGenerator(String generator) {
        this.generator = generator;
    }

    public Map<String, String> getSegments() {
        return segments;
    }
}
