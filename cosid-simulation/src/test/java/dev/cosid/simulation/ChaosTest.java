package dev.cosid.simulation;

import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chaos run per server store: {@code cosid.chaos.seconds} each (15 by default; raise it for a long
 * run). Fails on any duplicate id.
 */
class ChaosTest {

    @TempDir
    Path dir;

    private static Duration duration() {
        String value = System.getProperty("cosid.chaos.seconds", "");
        return Duration.ofSeconds(value.isBlank() ? 15 : Long.parseLong(value.trim()));
    }

    @Test
    void postgresql() throws Exception {
        try (PostgresServer server = PostgresServer.started()) {
            new ChaosRun(server, server.jdbcUrl(), dir, 1, 4).run(duration());
        }
    }

    @Test
    void redis() throws Exception {
        try (RedisServer server = RedisServer.started()) {
            new ChaosRun(server, server.url(), dir, 2, 4).run(duration());
        }
    }

    @Test
    void zookeeper() throws Exception {
        try (ZooKeeperServer server = ZooKeeperServer.started()) {
            new ChaosRun(server, server.url(), dir, 3, 4).run(duration());
        }
    }
}
