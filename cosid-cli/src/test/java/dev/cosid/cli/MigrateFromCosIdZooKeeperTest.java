package dev.cosid.cli;

import static dev.cosid.cli.Migration.all;
import static dev.cosid.cli.Migration.assertAllGreaterAndNoneRepeated;
import static dev.cosid.cli.Migration.issueOurs;
import static dev.cosid.cli.Migration.migrate;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.nio.file.Path;
import java.time.Duration;
import me.ahoo.cosid.machine.LocalMachineStateStorage;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Migration from CosId 2.x's ZooKeeper tree ({@code /cosid/{ns}/__itc_idx} and {@code /__revert}), written
 * by {@link CosIdZooKeeperMachineTree}, into our ZooKeeper store on the same server.
 */
class MigrateFromCosIdZooKeeperTest {

    @RegisterExtension
    static final ServerExtension<ZooKeeperServer> ZOOKEEPER = new ServerExtension<>(ZooKeeperServer::started);

    @TempDir
    Path dir;

    @Test
    void itcIdxAndRevertNodesRaiseEverySlotOfOurStore() throws Exception {
        String url = ZOOKEEPER.server().url();
        try (CuratorFramework client = CuratorFrameworkFactory.newClient(url.substring("zookeeper://".length()),
                new RetryNTimes(3, 200))) {
            client.start();
            LegacyInstance stopped = LegacyInstance.start(tree(client, "a"), "orders", "10.0.0.1:8080");
            LegacyInstance crashed = LegacyInstance.start(tree(client, "b"), "orders", "10.0.0.2:8080");
            assertEquals(0, stopped.machineId());
            crashed.issueFor(Duration.ofMillis(400));
            crashed.crash();
            stopped.issueFor(Duration.ofMillis(1000));
            stopped.stopCleanly();
            assertNotNull(client.checkExists().forPath("/cosid/orders/__revert/0"), "the clean stop left a revert node");
            assertNotNull(client.checkExists().forPath("/cosid/orders/__itc_idx/10.0.0.2:8080"), "the crash left its node");

            Cli done = migrate("--from-zookeeper", url, "--legacy-namespace", "orders",
                    "--safe-guard", LegacyInstance.SAFE_GUARD.toMillis() + "ms",
                    "--to-store", url, "--namespace", "orders", "--bits", "4");
            assertTrue(done.out().contains("zookeeper /cosid/orders/__revert/0 (released)"), done.out());

            long[] theirs = all(stopped, crashed);
            long[] ours = issueOurs(CosIdRuntime.builder().store(url).namespace("orders").bits(4),
                    IdLayout.MILLISECOND, theirs);
            assertAllGreaterAndNoneRepeated(theirs, ours, IdLayout.MILLISECOND);
        }
    }

    private CosIdZooKeeperMachineTree tree(CuratorFramework client, String instance) {
        return new CosIdZooKeeperMachineTree(client, new LocalMachineStateStorage(dir.resolve("state-" + instance).toString()));
    }
}
