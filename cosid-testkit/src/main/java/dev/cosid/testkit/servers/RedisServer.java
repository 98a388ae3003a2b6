package dev.cosid.testkit.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A Redis server of its own, durable: append-only file with {@code appendfsync always}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (RedisServer redis = RedisServer.started()) {
 *     LeaseStore store = LeaseStores.open(redis.url());
 * }
 * }</pre>
 */
public final class RedisServer extends ServerProcess {

    private final Path binary;
    /** The primary this server replicates, or null for a primary. */
    private final RedisServer primary;

    private RedisServer(Path binary, RedisServer primary) {
        super(primary == null ? "redis" : "redis-replica", Path.of("target", "servers"));
        this.binary = binary;
        this.primary = primary;
    }

    private static Path binary() {
        return Servers.binary("redis-server", "redis-server", List.of("/usr/bin", "/usr/local/bin"));
    }

    /**
     * Starts a server, or skips the calling test if Redis is not installed.
     *
     * @return the running server
     */
    public static RedisServer started() {
        RedisServer server = new RedisServer(binary(), null);
        server.firstStart();
        return server;
    }

    /**
     * Starts a replica of a running server and waits until its link to the primary is up and it holds
     * the primary's data.
     *
     * @param primary the server to replicate
     * @return the running replica
     */
    public static RedisServer replicaOf(RedisServer primary) {
        RedisServer replica = new RedisServer(binary(), primary);
        replica.firstStart();
        return replica;
    }

    /** Returns the store URL of this server. */
    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    protected void initialize() throws IOException {
        Files.createDirectories(dataDir());
    }

    @Override
    protected Process launch() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(binary.toString(), "--port", String.valueOf(port),
                "--bind", "127.0.0.1", "--dir", dataDir().toString(), "--appendonly", "yes", "--appendfsync", "always",
                "--save", "", "--repl-diskless-sync-delay", "0", "--daemonize", "no", "--protected-mode", "no",
                "--logfile", home.resolve("redis.log").toString()));
        if (primary != null) {
            command.addAll(List.of("--replicaof", "127.0.0.1", String.valueOf(primary.port)));
        }
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("redis.out").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        if (primary == null) {
            return ask("PING\r\n", 5).equals("+PONG");
        }
        // the replica's link is up, it holds everything the primary has, and no rewrite of its append-only file
        // competes with its fsyncs: only then does WAIT see its acknowledgement within a short bound
        String primaryInfo = primary.ask(RedisInfo.INFO, -1);
        return RedisInfo.replicaCaughtUp(ask(RedisInfo.INFO, -1), primaryInfo, port);
    }
}
