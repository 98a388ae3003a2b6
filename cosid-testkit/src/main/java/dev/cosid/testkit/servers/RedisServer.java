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

    private RedisServer(Path binary) {
        super("redis", Path.of("target", "servers"));
        this.binary = binary;
    }

    /**
     * Starts a server, or skips the calling test if Redis is not installed.
     *
     * @return the running server
     */
    public static RedisServer started() {
        RedisServer server = new RedisServer(Servers.binary("redis-server", "redis-server",
                List.of("/usr/bin", "/usr/local/bin")));
        server.firstStart();
        return server;
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
        return new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--dir", dataDir().toString(), "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                "--daemonize", "no", "--protected-mode", "no", "--logfile", home.resolve("redis.log").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("redis.out").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        return ask("PING\r\n", 5).equals("+PONG");
    }
}
