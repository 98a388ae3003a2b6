package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.Servers;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The partition fault itself: what a cut stops, what it leaves, and what closing removes. */
class NetworkPartitionTest {

    @Test
    void aCutDropsEveryPacketBetweenTheSidesTheTestStillReachesBothAndCloseRemovesTheNamespaces() throws Exception {
        NetworkPartition.Side a;
        NetworkPartition.Side b;
        try (NetworkPartition net = NetworkPartition.created();
                SentinelSetup.Node server = new SentinelSetup.Node(net, net.b(),
                        Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin")), null)) {
            a = net.a();
            b = net.b();
            server.begin();
            assertTrue(connects(a, server), "side A reaches side B's server before the cut");

            net.cut();
            assertFalse(connects(a, server), "side A no longer reaches side B's server once cut");
            assertEquals("PONG", server.redis("PING"), "the test reaches the server through its control link");

            net.heal();
            assertTrue(connects(a, server), "side A reaches side B's server again once healed");
        }
        String namespaces = new String(new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start()
                .getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(namespaces.contains(a.namespace()) || namespaces.contains(b.namespace()),
                "closing deletes both namespaces: " + namespaces);
    }

    /** Whether a TCP connection from inside the side to the server succeeds within two seconds. */
    private static boolean connects(NetworkPartition.Side side, PlacedServer server)
            throws IOException, InterruptedException {
        Process probe = new ProcessBuilder(side.inside(List.of("timeout", "2", "bash", "-c",
                "echo > /dev/tcp/" + server.host() + "/" + server.port()))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(probe.waitFor(10, TimeUnit.SECONDS), "the probe ends within its own bound");
        return probe.exitValue() == 0;
    }
}
