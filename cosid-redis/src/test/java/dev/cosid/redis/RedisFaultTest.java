package dev.cosid.redis;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Restart, pause, crowd and data loss against a Redis server started by the test. */
class RedisFaultTest extends StoreFaultContract {

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.started();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected ServerProcess server() {
        return server;
    }

    @Override
    protected String storeUrl() {
        return server.url();
    }
}
