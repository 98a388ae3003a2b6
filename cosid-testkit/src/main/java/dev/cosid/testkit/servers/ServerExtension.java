package dev.cosid.testkit.servers;

import java.util.concurrent.Callable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts a server before a test class and stops it after, so a store's test class only names it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @RegisterExtension
 * static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);
 * }</pre>
 *
 * @param <S> the kind of server: a {@link ServerProcess}, or any server that closes, such as an
 *     in-process Kafka broker
 */
public final class ServerExtension<S extends AutoCloseable> implements BeforeAllCallback, AfterAllCallback {

    private final Callable<S> starter;
    private S server;

    /**
     * Creates the extension.
     *
     * @param starter starts the server, or skips the tests when its binary is missing
     */
    public ServerExtension(Callable<S> starter) {
        this.starter = starter;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        server = starter.call();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** Returns the running server. */
    public S server() {
        if (server == null) {
            throw new IllegalStateException("the server is not running");
        }
        return server;
    }
}
