package dev.cosid.redis;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.ControlledServer;
import dev.cosid.testkit.servers.RedisSentinelGroup;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Restart, pause, crowd and data loss of a whole Sentinel group (primary, replica, sentinels). */
class RedisSentinelFaultTest extends StoreFaultContract {

    @RegisterExtension
    static final ServerExtension<RedisSentinelGroup> GROUP = new ServerExtension<>(RedisSentinelGroup::started);

    @Override
    protected ControlledServer server() {
        return GROUP.server();
    }

    @Override
    protected String storeUrl() {
        return GROUP.server().url();
    }
}
