package dev.cosid.testkit.servers;

/**
 * A store's server as a fault test drives it: one process ({@link ServerProcess}) or a replicated group
 * (a Redis primary with its replica and sentinels, a PostgreSQL primary with its standby), which each
 * operation acts on as a whole.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ControlledServer store = RedisSentinelGroup.started();
 * store.pause();   // nothing answers
 * store.resume();
 * store.restart(); // data kept
 * }</pre>
 */
public interface ControlledServer extends AutoCloseable {

    /** Starts the stopped server on its data and waits until it answers. */
    void start();

    /** Stops the server cleanly and waits for it to exit. */
    void stop();

    /** Stops and starts the server, keeping its data. */
    void restart();

    /** Stops the server, deletes its data, and starts it again empty: a store that lost everything. */
    void restartEmpty();

    /** Kills the server with SIGKILL, as a crash would; {@link #start()} brings it back. */
    void kill();

    /** Freezes the server with SIGSTOP: connections stay open and nothing answers. */
    void pause();

    /** Thaws the server with SIGCONT. */
    void resume();

    /** Stops the server and deletes its directory. */
    @Override
    void close();
}
