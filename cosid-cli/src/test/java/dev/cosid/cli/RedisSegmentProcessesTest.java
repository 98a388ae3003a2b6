package dev.cosid.cli;

import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./cosid segment} on a real Redis server: two concurrent JVMs and a third run. */
class RedisSegmentProcessesTest {

    @RegisterExtension
    static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);

    @TempDir
    Path dir;

    @Test
    void twoConcurrentRunsPrintDistinctIncreasingIdsAndAThirdContinuesAtTheHighestPlusOne() throws Exception {
        SegmentRuns.twoConcurrentRunsThenAThird(dir, REDIS.server().url());
    }
}
