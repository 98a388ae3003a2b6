package dev.cosid.redis;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss against a Redis server started by the test. */
class RedisFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<RedisServer> SERVER = new ServerExtension<>(RedisServer::started);

    @Override
    protected ServerProcess server() {
        return SERVER.server();
    }

    @Override
    protected String storeUrl() {
        return SERVER.server().url();
    }
}
