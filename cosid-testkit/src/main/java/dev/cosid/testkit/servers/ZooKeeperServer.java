package dev.cosid.testkit.servers;

import dev.cosid.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A ZooKeeper server of its own, in a child JVM ({@code ZooKeeperServerMain} from the ZooKeeper jar on
 * the test class path), so that it can be paused and killed like the other servers.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (ZooKeeperServer zookeeper = ZooKeeperServer.started()) {
 *     LeaseStore store = LeaseStores.open(zookeeper.url());
 * }
 * }</pre>
 */
public final class ZooKeeperServer extends ServerProcess {

    private ZooKeeperServer() {
        super("zookeeper", Path.of("target", "servers"));
    }

    /**
     * Starts a server.
     *
     * @return the running server
     */
    public static ZooKeeperServer started() {
        ZooKeeperServer server = new ZooKeeperServer();
        server.firstStart();
        return server;
    }

    /** Returns the store URL of this server. */
    public String url() {
        return "zookeeper://127.0.0.1:" + port;
    }

    @Override
    protected void initialize() throws IOException {
        Files.createDirectories(dataDir());
        Files.writeString(home.resolve("zoo.cfg"), String.join("\n",
                // no fsync per write: a killed server keeps what the kernel holds; a loaded machine answers sooner
                "forceSync=no",
                "tickTime=500",
                "initLimit=10",
                "syncLimit=5",
                "dataDir=" + dataDir(),
                "clientPort=" + port,
                "clientPortAddress=127.0.0.1",
                "maxClientCnxns=0",
                "admin.enableServer=false",
                "4lw.commands.whitelist=srvr",
                ""));
    }

    @Override
    protected Process launch() throws IOException {
        return new ProcessBuilder(ChildJvm.command(List.of("-Xmx256m"), "org.apache.zookeeper.server.ZooKeeperServerMain",
                List.of(home.resolve("zoo.cfg").toString())))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("zookeeper.log").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        // "not currently serving requests" until the server has loaded its data and opened its session tracker
        return ask("srvr", -1).contains("Mode: standalone");
    }
}
