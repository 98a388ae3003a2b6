package dev.cosid.redis;

import dev.cosid.testkit.StoreFaultContract;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Restart, pause, crowd and data loss against a Redis Cluster: all six nodes restarted, paused, or
 * wiped and the cluster created anew.
 */
class RedisClusterFaultTest extends StoreFaultContract {

    static {
        QuietLettuce.install();
    }

    @RegisterExtension
    static final ServerExtension<RedisCluster> CLUSTER = new ServerExtension<>(RedisCluster::started);

    @Override
    protected ServerProcess server() {
        return CLUSTER.server();
    }

    @Override
    protected String storeUrl() {
        return CLUSTER.server().url();
    }
}
