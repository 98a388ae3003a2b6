package dev.cosid.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Generators injected by type and by CosId's bean names, as CosId's own starter registers them. */
@ExtendWith(OutputCaptureExtension.class)
class BeansByTypeTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class))
            .withUserConfiguration(Orders.class);

    @TempDir
    Path dir;

    /** An application class whose constructor takes generators by type. */
    @Configuration(proxyBeanMethods = false)
    static class Orders {
        @Bean
        OrderService orderService(SnowflakeId ids, SegmentId numbers) {
            return new OrderService(ids, numbers);
        }
    }

    record OrderService(SnowflakeId ids, SegmentId numbers) {
    }

    @Test
    void aConstructorTakingASnowflakeIdGetsTheSharedGeneratorWithOnlyAStoreSet() {
        runner.withPropertyValues("cosid.store=memory:").run(context -> {
            SnowflakeId ids = context.getBean(OrderService.class).ids();
            assertSame(context.getBean("__share__SnowflakeId"), ids);
            assertEquals("__share__", ids.name());
            assertEquals(IdLayout.MILLISECOND, ids.layout());
            assertTrue(ids.nextId() < ids.nextId());
            SegmentId numbers = context.getBean(OrderService.class).numbers();
            assertSame(context.getBean("__share__SegmentId"), numbers);
            assertEquals("__share__", numbers.name());
            assertEquals(1, numbers.nextId(), "a new counter starts at 1");
            assertEquals(2, numbers.nextId());
        });
    }

    @Test
    void eachConfiguredSegmentIsALazyBeanWithItsPolicyAndCosIdsProviderStepIsTakenWithAWarning(CapturedOutput output) {
        runner.withPropertyValues("cosid.store=memory:", "cosid.segments.invoice.min-step=50",
                "cosid.segments.invoice.max-step=50", "cosid.segment.provider.ticket.step=20",
                "cosid.segment.enabled=true", "cosid.segment.mode=chain").run(context -> {
                    assertTrue(context.getBeanFactory().getBeanDefinition("invoiceSegmentId").isLazyInit());
                    assertEquals(0, context.getBean(CosIdRuntime.class).segments().stream()
                            .filter(s -> !s.name().equals("__share__")).count(), "nothing reserved before first use");
                    SegmentId invoice = context.getBean("invoiceSegmentId", SegmentId.class);
                    assertEquals("invoice", invoice.name());
                    long[] first = invoice.nextIds(50);
                    assertEquals(50, first[49], "one range of 50 ids");
                    SegmentId ticket = context.getBean("ticketSegmentId", SegmentId.class);
                    assertEquals(20, ticket.nextIds(20)[19]);
                    assertEquals(Set.of("__share__SegmentId", "invoiceSegmentId", "ticketSegmentId"),
                            Set.of(context.getBeanNamesForType(SegmentId.class)));
                });
        assertTrue(output.getOut().contains("cosid.segment.provider.ticket.step is a CosId 2.x key: replaced by "
                + "cosid.segments.ticket.min-step"), output.getOut());
        assertTrue(output.getOut().contains("cosid.segment.mode is a CosId 2.x key: every segment generator "
                + "prefetches ranges"), output.getOut());
    }

    @Test
    void eachConfiguredGeneratorIsABeanNamedAsCosIdNamesIt() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.generators.order.layout=SECOND",
                "cosid.generators.invoice.layout=MILLISECOND").run(context -> {
                    SnowflakeId order = context.getBean("orderSnowflakeId", SnowflakeId.class);
                    assertEquals("order", order.name());
                    assertEquals(IdLayout.SECOND, order.layout());
                    assertSame(context.getBean(CosIdGenerators.class).get("order"), order);
                    assertEquals("invoice", context.getBean("invoiceSnowflakeId", SnowflakeId.class).name());
                    assertEquals("__share__", context.getBean(SnowflakeId.class).name(), "the shared one is primary");
                    assertEquals(Set.of("__share__SnowflakeId", "orderSnowflakeId", "invoiceSnowflakeId"),
                            Set.of(context.getBeanNamesForType(SnowflakeId.class)));
                });
    }

    @Test
    void theHealthDetailsCarryTheRunwayOfTheRuntimesFirstLayout() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.generators.batch.layout=SECOND").run(context -> {
            CosIdHealth health = CosIdHealth.of(context.getBean(CosIdRuntime.class));
            assertEquals(IdLayout.SECOND.runsOutAt().toString(), health.details().get("layoutRunsOutAt"));
            long seconds = (Long) health.details().get("runwaySeconds");
            long expected = (IdLayout.SECOND.runsOutAt().toEpochMilli() - Instant.now().toEpochMilli()) / 1000;
            assertTrue(Math.abs(seconds - expected) < 60, seconds + " s, about " + expected);
        });
    }

    @Test
    void twoApplicationsOnOneStoreRepeatNoId() {
        ApplicationContextRunner shared = runner.withPropertyValues("cosid.store=sqlite:" + dir.resolve("ids.db"),
                "cosid.ttl=5s");
        Set<Long> seen = new HashSet<>();
        Set<Long> numbers = new HashSet<>();
        shared.withPropertyValues("cosid.owner-key=app-a").run(a -> shared.withPropertyValues("cosid.owner-key=app-b")
                .run(b -> {
                    SnowflakeId first = a.getBean(OrderService.class).ids();
                    SnowflakeId second = b.getBean(OrderService.class).ids();
                    SegmentId firstNumbers = a.getBean(OrderService.class).numbers();
                    SegmentId secondNumbers = b.getBean(OrderService.class).numbers();
                    int slotA = a.getBean(CosIdRuntime.class).lease().slot();
                    int slotB = b.getBean(CosIdRuntime.class).lease().slot();
                    assertNotEquals(slotA, slotB, "two instances, two slots");
                    for (int i = 0; i < 5_000; i++) {
                        for (long id : new long[] {first.nextId(), second.nextId()}) {
                            assertTrue(seen.add(id), "id " + id + " repeated");
                        }
                        for (long number : new long[] {firstNumbers.nextId(), secondNumbers.nextId()}) {
                            assertTrue(numbers.add(number), "segment id " + number + " repeated");
                        }
                    }
                }));
        assertEquals(10_000, seen.size());
        assertEquals(10_000, numbers.size());
    }
}
