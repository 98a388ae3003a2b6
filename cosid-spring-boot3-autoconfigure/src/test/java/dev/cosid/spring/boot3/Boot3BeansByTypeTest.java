package dev.cosid.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** On Spring Boot 3.5, with only cosid.store set, SnowflakeId and SegmentId are injected by type. */
class Boot3BeansByTypeTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class, CosIdBoot3AutoConfiguration.class))
            .withUserConfiguration(Orders.class);

    @TempDir
    Path dir;

    /** An application class whose constructor takes both generators by type. */
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
    void twoApplicationsOnOneStoreInjectBothGeneratorsByTypeAndRepeatNothing() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        ApplicationContextRunner shared = runner.withPropertyValues("cosid.store=sqlite:" + dir.resolve("ids.db"),
                "cosid.generators.order.layout=SECOND", "cosid.segments.invoice.min-step=10");
        Set<Long> ids = new HashSet<>();
        Set<Long> numbers = new HashSet<>();
        Set<Long> invoices = new HashSet<>();
        shared.withPropertyValues("cosid.owner-key=a").run(a -> shared.withPropertyValues("cosid.owner-key=b").run(b -> {
            assertNotEquals(a.getBean(CosIdRuntime.class).lease().slot(), b.getBean(CosIdRuntime.class).lease().slot());
            assertEquals("order", a.getBean("orderSnowflakeId", SnowflakeId.class).name());
            SegmentId invoiceA = a.getBean("invoiceSegmentId", SegmentId.class);
            SegmentId invoiceB = b.getBean("invoiceSegmentId", SegmentId.class);
            for (OrderService service : new OrderService[] {a.getBean(OrderService.class), b.getBean(OrderService.class)}) {
                for (int i = 0; i < 2_000; i++) {
                    assertTrue(ids.add(service.ids().nextId()), "a snowflake id repeated");
                    assertTrue(numbers.add(service.numbers().nextId()), "a segment id repeated");
                }
            }
            for (int i = 0; i < 100; i++) {
                assertTrue(invoices.add(invoiceA.nextId()) && invoices.add(invoiceB.nextId()), "an invoice id repeated");
            }
        }));
        assertEquals(4_000, ids.size());
        assertEquals(4_000, numbers.size());
        assertEquals(200, invoices.size());
    }
}
