package dev.cosid.mybatisplus;

import com.baomidou.mybatisplus.core.incrementer.IdentifierGenerator;
import dev.cosid.CosIdRuntime;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import dev.cosid.spring.boot.CosIdGenerators;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Registers {@link CosIdIdentifierGenerator} as the application's MyBatis-Plus
 * {@link IdentifierGenerator}, before MyBatis-Plus's own (whose worker id comes from the host's
 * addresses), so that {@code IdType.ASSIGN_ID} ids come from the CosId runtime's leased slot.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * <dependency><groupId>dev.cosid</groupId><artifactId>cosid-mybatis-plus</artifactId></dependency>
 * # application.yml: cosid.store: datasource
 * }</pre>
 */
@AutoConfiguration(after = CosIdAutoConfiguration.class, beforeName = {
        "com.baomidou.mybatisplus.autoconfigure.IdentifierGeneratorAutoConfiguration",
        "com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration"})
@ConditionalOnClass({IdentifierGenerator.class, CosIdGenerators.class})
@ConditionalOnBean(CosIdRuntime.class)
@ConditionalOnProperty(name = "cosid.mybatis-plus.enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(CosIdMybatisPlusProperties.class)
public class CosIdMybatisPlusAutoConfiguration {

    /**
     * Returns the identifier generator MyBatis-Plus uses for {@code ASSIGN_ID}.
     *
     * @param runtime the runtime
     * @param generators the runtime's generators
     * @param properties the cosid.mybatis-plus properties
     * @return the generator
     */
    @Bean
    @ConditionalOnMissingBean(IdentifierGenerator.class)
    public CosIdIdentifierGenerator cosIdIdentifierGenerator(CosIdRuntime runtime, CosIdGenerators generators,
                                                             CosIdMybatisPlusProperties properties) {
        return new CosIdIdentifierGenerator(runtime, generators, properties.getGenerator(), properties.getSegments());
    }
}
