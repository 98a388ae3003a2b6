package dev.cosid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import dev.cosid.testkit.BadNames;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

/**
 * Spring Boot's doors for names: a generator or segment configured under a name of {@link BadNames#ALL} stops
 * the start with the failure analyzer's report carrying the rule's own message; a request-facing lookup never
 * creates a generator.
 */
class ConfiguredNamesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class))
            .withPropertyValues("cosid.store=memory:");

    /** The key as Spring binds a map key exactly: in brackets, from a property source that takes any text. */
    private ApplicationContextRunner with(String key, String value) {
        return runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("names", Map.of(key, value))));
    }

    private static void assertStopped(org.springframework.boot.test.context.assertj.AssertableApplicationContext
            context, String key, String bad) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new CosIdFailureAnalyzer().analyze(context.getStartupFailure());
        assertNotNull(analysis, bad + ": " + context.getStartupFailure());
        if (bad.isEmpty()) {
            // no property key carries an empty map key: Spring binds cosid.generators[].layout as
            // cosid.generators.layout, and that binding fails before the rule is asked
            assertThat(analysis.getDescription()).startsWith(key + ".");
            return;
        }
        assertEquals(key + " = '" + bad + "': " + BadNames.refusal(bad), analysis.getDescription(), bad);
        assertThat(analysis.getAction()).contains("Rename it");
    }

    @Test
    void aGeneratorConfiguredUnderABadNameStopsTheStartWithTheRulesMessage() {
        for (String bad : BadNames.ALL) {
            with("cosid.generators[" + bad + "].layout", "SECOND")
                    .run(context -> assertStopped(context, "cosid.generators", bad));
        }
    }

    @Test
    void aSegmentConfiguredUnderABadNameStopsTheStartWithTheRulesMessage() {
        for (String bad : BadNames.ALL) {
            with("cosid.segments[" + bad + "].min-step", "10")
                    .run(context -> assertStopped(context, "cosid.segments", bad));
        }
    }

    @Test
    void configuredNeverCreatesAGeneratorAndGetRefusesABadName() {
        runner.withPropertyValues("cosid.generators.order.layout=SECOND").run(context -> {
            CosIdGenerators generators = context.getBean(CosIdGenerators.class);
            CosIdRuntime runtime = context.getBean(CosIdRuntime.class);
            assertEquals("order", generators.configured("order").orElseThrow().name());
            int before = runtime.generators().size();
            assertTrue(generators.configured("nope").isEmpty());
            assertTrue(generators.configured(null).isEmpty());
            for (String bad : BadNames.ALL) {
                assertTrue(generators.configured(bad).isEmpty(), bad);
                assertEquals(BadNames.refusal(bad),
                        assertThrows(IllegalArgumentException.class, () -> generators.get(bad)).getMessage());
                assertEquals(BadNames.refusal(bad),
                        assertThrows(IllegalArgumentException.class, () -> generators.segment(bad)).getMessage());
            }
            assertEquals(before, runtime.generators().size(), "no generator was created: "
                    + runtime.generators().stream().map(SnowflakeId::name).toList());
            assertTrue(runtime.segments().isEmpty());
        });
    }
}
