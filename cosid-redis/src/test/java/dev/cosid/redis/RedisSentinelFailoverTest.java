package dev.cosid.redis;

import dev.cosid.testkit.StoreFailoverContract;
import dev.cosid.testkit.servers.RedisSentinelGroup;
import dev.cosid.testkit.servers.ServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis primary SIGKILLed, the sentinels promote one of its two replicas, the store follows them. The store
 * waits for one replica per write (the default): the promoted primary stays writable with the other replica.
 */
class RedisSentinelFailoverTest extends StoreFailoverContract {

    @RegisterExtension
    static final ServerExtension<RedisSentinelGroup> GROUP = new ServerExtension<>(() -> RedisSentinelGroup.started(2));

    @Override
    protected String storeUrl() {
        return GROUP.server().url();
    }

    @Override
    protected Duration failover() {
        return GROUP.server().failover();
    }

    @Override
    protected void awaitReplicated() {
        GROUP.server().awaitReplicaCaughtUp();
    }

    @Override
    protected void rejoin() {
        GROUP.server().rejoin();
    }
}
