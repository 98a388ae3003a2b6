package dev.cosid.partition;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A leader worker of {@link StoreLeaderPartitionTest}, started inside a side of a network partition: one
 * {@link Elector} for one role on a store's transport ({@link CoordinationTransports#open(String)}) and, while it
 * leads, rows {@code (member, token, seq, wall)} written through the {@link JdbcFence} into a table, in the pattern
 * of {@link LeaderWorker}: check, prepare, write on a thread the elector's interrupt does not reach. Events go to
 * standard output with the wall time; the process ends when its standard input closes.
 */
public final class StoreLeaderWorker {

    private static final Clock WALL = Clock.system();

    private StoreLeaderWorker() {
    }

    private static synchronized void say(String what) {
        System.out.println(WALL.nowMillis() + " " + what);
        System.out.flush();
    }

    /**
     * Runs the worker.
     *
     * @param args store URL, fence JDBC URL, member, lease duration in ms, role, table
     * @throws IOException when standard input fails
     */
    public static void main(String[] args) throws IOException {
        String fenceUrl = args[1];
        MemberId member = MemberId.of(args[2]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        Role role = Role.of(args[4]);
        String table = args[5];
        CoordinationTransport transport = null;
        while (transport == null) {
            try {
                transport = CoordinationTransports.open(args[0]);
            } catch (RuntimeException e) {
                say("no transport yet: " + e.getMessage());
                WALL.park(TimeUnit.MILLISECONDS.toNanos(500));
            }
        }
        ExecutorService writes = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "writer");
            thread.setDaemon(true);
            return thread;
        });
        JdbcFence fence = JdbcFence.standard();
        Elector.builder(transport, role, member).config(LeaseConfig.of(lease, lease.dividedBy(3), lease.dividedBy(6)))
                .retryInterval(Duration.ofMillis(200)).listener(new ElectionListener() {
                    @Override
                    public void elected(Leadership leadership) {
                        say("elected " + role + " " + leadership.token());
                    }

                    @Override
                    public void revoked(Revocation revocation) {
                        say("revoked " + role + " " + revocation.leadership().token() + " " + revocation.reason());
                    }
                }).work(leadership -> {
                    for (long seq = 0; leadership.live(); seq++) {
                        WALL.park(LeaderWorker.PREPARE.toNanos());
                        long n = seq;
                        Future<?> write = writes.submit(() -> {
                            write(fenceUrl, fence, leadership, table, member + " " + leadership.token() + " " + n
                                    + " " + WALL.nowMillis());
                            return null;
                        });
                        Throwable failure = finish(write);
                        if (failure != null) {
                            say("refused " + role + " " + leadership.token() + " seq " + n + ": "
                                    + failure.getClass().getSimpleName() + ": " + failure.getMessage());
                            if (Thread.currentThread().isInterrupted()) {
                                return;
                            }
                        }
                    }
                }).start();
        say("started " + member);
        while (System.in.read() >= 0) {
            // any input is ignored; the end of it stops the worker
        }
        say("stopping");
        Runtime.getRuntime().halt(0);
    }

    private static void write(String fenceUrl, JdbcFence fence, Leadership leadership, String table, String text)
            throws SQLException {
        String[] parts = text.split(" ");
        try (Connection c = DriverManager.getConnection(fenceUrl + "&connectTimeout=2&socketTimeout=60")) {
            try (Statement statement = c.createStatement()) {
                // a worker cut off inside its transaction must not hold the fence row's lock for long (LeaderWorker)
                statement.execute("SET idle_in_transaction_session_timeout = 5000");
            }
            c.setAutoCommit(false);
            try {
                fence.check(c, leadership.role(), leadership.token());
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                        + " (member, token, seq, wall) VALUES (?, ?, ?, ?)")) {
                    insert.setString(1, parts[0]);
                    insert.setString(2, parts[1]);
                    insert.setLong(3, Long.parseLong(parts[2]));
                    insert.setLong(4, Long.parseLong(parts[3]));
                    insert.executeUpdate();
                }
                c.commit();
            } catch (FencedException | SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static Throwable finish(Future<?> write) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    write.get();
                    return null;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return e.getCause();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
