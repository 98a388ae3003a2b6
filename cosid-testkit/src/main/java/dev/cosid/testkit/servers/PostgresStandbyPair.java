package dev.cosid.testkit.servers;

import dev.cosid.time.Clock;
import java.time.Duration;

/**
 * A PostgreSQL primary and its hot standby streaming the WAL, each a child process on its own loopback
 * port and directory: asynchronous, or synchronous ({@code synchronous_standby_names = '*'} on the primary:
 * a commit returns once the standby has flushed it). {@link #failover()} kills the primary and promotes the
 * standby ({@code pg_ctl promote}); {@link #rejoin()} copies the new primary into the killed server's
 * directory and starts it as the new standby. The other operations act on both servers.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (PostgresStandbyPair pair = PostgresStandbyPair.started(false)) {
 *     LeaseStore store = LeaseStores.open(pair.jdbcUrl()); // both hosts, targetServerType=primary
 *     Duration took = pair.failover();
 *     pair.rejoin();
 * }
 * }</pre>
 */
public final class PostgresStandbyPair implements ControlledServer {

    private static final Clock CLOCK = Clock.system();

    private final boolean synchronous;
    private final PostgresServer first;
    private final PostgresServer second;
    private PostgresServer primary;

    private PostgresStandbyPair(boolean synchronous, PostgresServer first, PostgresServer second) {
        this.synchronous = synchronous;
        this.first = first;
        this.second = second;
        this.primary = first;
    }

    /**
     * Starts a primary and its standby, or skips the calling test if PostgreSQL is not installed.
     *
     * @param synchronous whether a commit waits for the standby
     * @return the running pair
     */
    public static PostgresStandbyPair started(boolean synchronous) {
        PostgresServer primary = PostgresServer.started();
        PostgresServer standby;
        try {
            standby = PostgresServer.standbyOf(primary);
        } catch (RuntimeException e) {
            primary.close();
            throw e;
        }
        PostgresStandbyPair pair = new PostgresStandbyPair(synchronous, primary, standby);
        pair.makeSynchronous();
        return pair;
    }

    /** Returns whether a commit waits for the standby. */
    public boolean synchronous() {
        return synchronous;
    }

    /**
     * Returns a JDBC URL that lists both servers and asks the driver for the one that accepts writes.
     *
     * @return {@code jdbc:postgresql://127.0.0.1:P1,127.0.0.1:P2/postgres?user=postgres&targetServerType=primary}
     */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + first.port() + ",127.0.0.1:" + second.port()
                + "/postgres?user=postgres&targetServerType=primary";
    }

    /** Returns the server that accepts writes now. */
    public synchronized PostgresServer primary() {
        return primary;
    }

    /** Returns the standby, or the killed server between {@link #failover()} and {@link #rejoin()}. */
    public synchronized PostgresServer standby() {
        return primary == first ? second : first;
    }

    /**
     * Kills the primary with SIGKILL and promotes the standby.
     *
     * @return how long the kill and the promotion took
     */
    public synchronized Duration failover() {
        PostgresServer old = primary;
        PostgresServer next = standby();
        long start = CLOCK.monotonicNanos();
        old.kill();
        next.promote();
        Duration took = Duration.ofNanos(CLOCK.monotonicNanos() - start);
        primary = next;
        return took;
    }

    /** Waits until the standby has replayed every commit of the primary so far. */
    public synchronized void awaitStandbyCaughtUp() {
        String target = primary.sql("SELECT pg_current_wal_lsn()");
        long deadline = CLOCK.monotonicNanos() + Duration.ofSeconds(30).toNanos();
        while (!primary.sql("SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= '" + target + "'")
                .equals("1")) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException("the standby of " + primary + " did not replay up to " + target);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Rebuilds the server {@link #failover()} killed as a standby of the new primary and starts it. */
    public synchronized void rejoin() {
        standby().rebuildAsStandbyOf(primary);
        makeSynchronous();
    }

    private void makeSynchronous() {
        if (synchronous) {
            // set on the primary only, after the copy: the standby's copy of the setting would make its own
            // commits wait for a standby it does not have once it is promoted
            primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
            primary.sql("SELECT pg_reload_conf()");
            long deadline = CLOCK.monotonicNanos() + Duration.ofSeconds(30).toNanos();
            while (!primary.sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").equals("1")) {
                if (CLOCK.monotonicNanos() > deadline) {
                    throw new IllegalStateException("the standby of " + primary + " did not become synchronous");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    /** Starts both servers; returns once the standby streams (and, for a synchronous pair, is the synchronous one). */
    @Override
    public synchronized void start() {
        primary.start();
        standby().start();
        makeSynchronous();
    }

    @Override
    public synchronized void stop() {
        primary.stop();
        standby().stop();
    }

    @Override
    public synchronized void restart() {
        stop();
        start();
    }

    @Override
    public synchronized void restartEmpty() {
        primary.restartEmpty();
        standby().rebuildAsStandbyOf(primary);
        makeSynchronous();
    }

    @Override
    public synchronized void kill() {
        primary.kill();
        standby().kill();
    }

    @Override
    public synchronized void pause() {
        primary.pause();
        standby().pause();
    }

    @Override
    public synchronized void resume() {
        standby().resume();
        primary.resume();
    }

    @Override
    public synchronized void close() {
        standby().close();
        primary.close();
    }

    @Override
    public String toString() {
        return "PostgresStandbyPair[" + jdbcUrl() + (synchronous ? ", synchronous" : ", asynchronous") + "]";
    }
}
