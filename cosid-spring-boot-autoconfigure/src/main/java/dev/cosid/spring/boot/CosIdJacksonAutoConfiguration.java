package dev.cosid.spring.boot;

import dev.cosid.jackson.CosIdJackson2Module;
import dev.cosid.jackson.CosIdJacksonModule;
import dev.cosid.jackson.IdFormat;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Registers the CosId Jackson modules with the application's mappers: {@code @IdAsString} fields become
 * strings, and with {@code cosid.jackson.longs=decimal} (or {@code radix62}) every long does. Spring
 * Boot adds module beans to the mappers it builds: Jackson 3's {@code JsonMapper} and Jackson 2's
 * {@code ObjectMapper} alike.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid.jackson.longs: decimal     # every long a string; @IdAsString(IdFormat.RADIX62) still wins per field
 * }</pre>
 */
@AutoConfiguration(beforeName = {
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration",
        "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration"})
@ConditionalOnClass(IdFormat.class)
@ConditionalOnProperty(name = "cosid.jackson.enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CosIdProperties.class)
public class CosIdJacksonAutoConfiguration {

    /** Jackson 3. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
    static class Jackson3 {

        @Bean
        @ConditionalOnMissingBean
        CosIdJacksonModule cosIdJacksonModule(CosIdProperties properties) {
            IdFormat all = format(properties.getJackson().getLongs());
            return all == null ? new CosIdJacksonModule() : CosIdJacksonModule.allLongs(all);
        }
    }

    /** Jackson 2. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
    static class Jackson2 {

        @Bean
        @ConditionalOnMissingBean
        CosIdJackson2Module cosIdJackson2Module(CosIdProperties properties) {
            IdFormat all = format(properties.getJackson().getLongs());
            return all == null ? new CosIdJackson2Module() : CosIdJackson2Module.allLongs(all);
        }
    }

    static IdFormat format(CosIdProperties.LongFormat longs) {
        return switch (longs) {
            case NUMBER -> null;
            case DECIMAL -> IdFormat.DECIMAL;
            case RADIX62 -> IdFormat.RADIX62;
        };
    }
}
