package dev.cosid.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SlotRecord;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** {@code cosid.store=redis}: the application's own Spring Data Redis (Lettuce) connection, against a real server. */
class RedisConnectionStoreTest {

    @RegisterExtension
    static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);

    @Test
    void theApplicationsRedisConnectionHoldsTheLeaseAndStaysOpenAfterTheRelease() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, CosIdAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + REDIS.server().port(),
                        "cosid.namespace=cache", "cosid.store=redis", "cosid.owner-key=r:1");
        try (LeaseStore check = LeaseStores.open(REDIS.server().url())) {
            runner.run(app -> {
                CosIdRuntime runtime = app.getBean(CosIdRuntime.class);
                SlotRecord held = check.read("cache").bySlot().get(runtime.lease().slot());
                assertEquals(runtime.owner(), held.owner(), "the lease lives in the application's Redis");
                app.getBean(CosIdLifecycle.class).stop();
                assertTrue(app.getBean(LettuceConnectionFactory.class).isRunning());
                StringRedisTemplate template = new StringRedisTemplate(app.getBean(LettuceConnectionFactory.class));
                template.opsForValue().set("still", "open");
                assertEquals("open", template.opsForValue().get("still"), "the application's connection stays open");
            });
            runner.run(app -> {
                CosIdRuntime runtime = app.getBean(CosIdRuntime.class);
                long id = runtime.snowflake("order").nextId();
                int held = runtime.lease().slot();
                app.getBean(CosIdLifecycle.class).stop();
                SlotRecord released = check.read("cache").bySlot().get(held);
                assertNull(released.owner());
                assertEquals(IdLayout.MILLISECOND.parse(id).timestampMillis(), released.nextFloor());
            });
        }
    }
}
