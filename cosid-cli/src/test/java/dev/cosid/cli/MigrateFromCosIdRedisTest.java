package dev.cosid.cli;

import static dev.cosid.cli.Migration.all;
import static dev.cosid.cli.Migration.assertAllGreaterAndNoneRepeated;
import static dev.cosid.cli.Migration.issueOurs;
import static dev.cosid.cli.Migration.migrate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import me.ahoo.cosid.machine.ClockBackwardsSynchronizer;
import me.ahoo.cosid.machine.LocalMachineStateStorage;
import me.ahoo.cosid.spring.redis.SpringRedisMachineIdDistributor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Migration from CosId 2.x's Redis machine-id distributor ({@code cosid-spring-redis}), run by CosId's own
 * distributor, scripts, guarder and generator against a real Redis server.
 */
class MigrateFromCosIdRedisTest {

    @RegisterExtension
    static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);

    @TempDir
    Path dir;
    private LettuceConnectionFactory connections;
    private StringRedisTemplate redis;

    @BeforeEach
    void connect() {
        URI uri = URI.create(REDIS.server().url());
        connections = new LettuceConnectionFactory(new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
        connections.afterPropertiesSet();
        connections.start();
        redis = new StringRedisTemplate(connections);
    }

    @AfterEach
    void disconnect() {
        connections.destroy();
    }

    private SpringRedisMachineIdDistributor distributor(String instance) {
        return new SpringRedisMachineIdDistributor(redis,
                new LocalMachineStateStorage(dir.resolve("state-" + instance).toString()), ClockBackwardsSynchronizer.DEFAULT);
    }

    @Test
    void instancesThatStoppedCleanlyAreReadFromTheRevertHashAndOurIdsComeAfterTheirs() {
        LegacyInstance first = LegacyInstance.start(distributor("a"), "shop", "10.0.0.1:8080");
        LegacyInstance second = LegacyInstance.start(distributor("b"), "shop", "10.0.0.2:8080");
        first.issueFor(java.time.Duration.ofMillis(600));
        second.issueFor(java.time.Duration.ofMillis(600));
        first.stopCleanly();
        second.stopCleanly();
        assertEquals(Map.of(), redis.opsForHash().entries("cosid:{shop}:itc_idx"), "CosId's revert empties itc_idx");
        assertEquals(2, redis.opsForHash().size("cosid:{shop}:revert"), "and moves each machine to the revert hash");

        Cli done = migrate("--from-redis", REDIS.server().url(), "--legacy-namespace", "shop",
                "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                "--to-store", REDIS.server().url(), "--namespace", "shop-clean");
        assertTrue(done.out().contains("cosid:{shop}:revert"), done.out());

        long[] theirs = all(first, second);
        long[] ours = issueOurs(CosIdRuntime.builder().store(REDIS.server().url()).namespace("shop-clean"),
                IdLayout.MILLISECOND, theirs);
        assertAllGreaterAndNoneRepeated(theirs, ours, IdLayout.MILLISECOND);
    }

    @Test
    void anInstanceThatCrashedAndOneThatStoppedCleanlyLaterAreBothRead() {
        // machine 0 keeps issuing after machine 1 crashed, then stops cleanly: its last timestamp is only
        // in the revert hash, and it is later than anything left in itc_idx
        LegacyInstance survivor = LegacyInstance.start(distributor("a"), "cart", "10.0.0.1:8080");
        LegacyInstance crashed = LegacyInstance.start(distributor("b"), "cart", "10.0.0.2:8080");
        assertEquals(0, survivor.machineId());
        crashed.issueFor(java.time.Duration.ofMillis(500));
        crashed.crash();
        survivor.issueFor(java.time.Duration.ofMillis(1500));
        survivor.stopCleanly();
        assertEquals(1, redis.opsForHash().size("cosid:{cart}:itc_idx"), "the crashed machine stays in itc_idx");

        migrate("--from-redis", REDIS.server().url(), "--legacy-namespace", "cart",
                "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                "--to-store", REDIS.server().url(), "--namespace", "cart-mixed");

        long[] theirs = all(survivor, crashed);
        long[] ours = issueOurs(CosIdRuntime.builder().store(REDIS.server().url()).namespace("cart-mixed"),
                IdLayout.MILLISECOND, theirs);
        assertEquals(0, IdLayout.MILLISECOND.parse(ours[0]).slot(), "our runtime holds the survivor's machine id");
        assertAllGreaterAndNoneRepeated(theirs, ours, IdLayout.MILLISECOND);
    }
}
