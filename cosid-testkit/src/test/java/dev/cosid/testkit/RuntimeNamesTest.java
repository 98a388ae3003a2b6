package dev.cosid.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.lease.InMemoryLeaseStore;
import org.junit.jupiter.api.Test;

/** The library's door: the runtime refuses every name of {@link BadNames#ALL} with the rule's message. */
class RuntimeNamesTest {

    @Test
    void theRuntimeRefusesEveryBadNameForSegmentsAndGeneratorsAndCreatesNothing() {
        InMemoryLeaseStore store = new InMemoryLeaseStore();
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("names").store(store).start()) {
            for (String bad : BadNames.ALL) {
                IllegalArgumentException segment = assertThrows(IllegalArgumentException.class,
                        () -> runtime.segment(bad), bad);
                assertEquals(BadNames.refusal(bad), segment.getMessage());
                IllegalArgumentException snowflake = assertThrows(IllegalArgumentException.class,
                        () -> runtime.snowflake(bad, IdLayout.SECOND), bad);
                assertEquals(BadNames.refusal(bad), snowflake.getMessage());
            }
            assertTrue(runtime.segments().isEmpty(), "no segment generator: " + runtime.segments());
            assertTrue(runtime.generators().isEmpty(), "no generator: " + runtime.generators());
            assertTrue(store.segments("names").isEmpty(), "no counter: " + store.segments("names"));
            for (String good : BadNames.EDGES) {
                assertEquals(good, runtime.segment(good).name());
                assertEquals(good, runtime.snowflake(good).name());
            }
            assertEquals(BadNames.EDGES.size(), store.segments("names").size());
        }
    }
}
