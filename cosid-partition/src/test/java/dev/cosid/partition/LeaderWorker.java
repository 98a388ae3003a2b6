package dev.cosid.partition;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A leader worker process of {@link KafkaLeaderFaultTest}, started inside a host of the test's star network: it runs
 * one {@link Elector} per role on the Kafka transport and, while it leads a role, writes numbered records to the
 * role's output topic and rows to the role's table, each carrying {@code member token seq wallMillis}.
 *
 * <p>Every write follows the pattern a fence exists for: the work checks that it leads, prepares the write
 * ({@link #PREPARE}), then writes on a thread of its own that the elector's interrupt does not reach, so a write
 * under way when the process is frozen or cut off goes out when it runs again. A {@code fenced} role writes through
 * the role's Kafka transactions ({@code inTransaction}) and through the {@link JdbcFence}; a {@code plain} role (the
 * negative control) writes the same with a plain producer and an unfenced INSERT, with the token of its leadership
 * and no fencing. Events go to standard output, one line each, with the wall time:
 * {@code WALL elected ROLE TOKEN}, {@code WALL revoked ROLE TOKEN REASON}, {@code WALL refused ROLE ...}.
 * The process ends when its standard input closes.
 */
public final class LeaderWorker {

    /** How long the work prepares a write between its check that it leads and the write. */
    static final Duration PREPARE = Duration.ofMillis(40);
    private static final Clock WALL = Clock.system();

    private LeaderWorker() {
    }

    private static synchronized void say(String what) {
        System.out.println(WALL.nowMillis() + " " + what);
        System.out.flush();
    }

    /**
     * Runs the worker.
     *
     * @param args bootstrap servers, member, lease duration in ms, JDBC URL, then one or more
     *     {@code role:mode:topic:table} with mode {@code fenced} or {@code plain}
     * @throws IOException when standard input fails
     */
    public static void main(String[] args) throws IOException {
        String bootstrap = args[0];
        MemberId member = MemberId.of(args[1]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        String jdbcUrl = args[3];
        LeaseConfig config = LeaseConfig.of(lease, lease.dividedBy(3), lease.dividedBy(6));
        Map<String, Object> clients = new HashMap<>();
        clients.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // a client behind a cut, or talking to a killed broker, gives up on it within seconds
        clients.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, (int) lease.toMillis());
        clients.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, 1000L);
        clients.put(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, 2000L);
        clients.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000L);
        clients.put(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, 5000);
        KafkaCoordinationTransport transport = null;
        while (transport == null) {
            try {
                transport = KafkaCoordinationTransport.create(clients, 3, lease, lease);
            } catch (RuntimeException e) {
                say("no transport yet: " + e.getMessage());
                WALL.park(TimeUnit.MILLISECONDS.toNanos(500));
            }
        }
        Map<String, Object> plainConfig = new HashMap<>(clients);
        plainConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        KafkaProducer<byte[], byte[]> plain = new KafkaProducer<>(plainConfig, new ByteArraySerializer(),
                new ByteArraySerializer());
        ExecutorService writes = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "writer");
            thread.setDaemon(true);
            return thread;
        });
        for (int i = 4; i < args.length; i++) {
            String[] spec = args[i].split(":");
            Role role = Role.of(spec[0]);
            Writer writer = spec[1].equals("fenced") ? new Fenced(transport, jdbcUrl, spec[2], spec[3])
                    : new Plain(plain, jdbcUrl, spec[2], spec[3]);
            Elector.builder(transport, role, member).config(config).retryInterval(Duration.ofMillis(200))
                    .listener(new ElectionListener() {
                        @Override
                        public void elected(Leadership leadership) {
                            say("elected " + role + " " + leadership.token());
                        }

                        @Override
                        public void revoked(Revocation revocation) {
                            say("revoked " + role + " " + revocation.leadership().token() + " "
                                    + revocation.reason() + " " + revocation.detail().replace('\n', ' '));
                        }

                        private String lastFailure = "";

                        @Override
                        public void renewalFailed(Leadership leadership, CoordinationException failure,
                                                  long revokeAtMillis) {
                            failed("renewal-failed " + role + " " + leadership.token(), failure);
                        }

                        @Override
                        public void campaignFailed(Role failedRole, CoordinationException failure) {
                            failed("campaign-failed " + role, failure);
                        }

                        /** Says a failure once, not again while it repeats. */
                        private synchronized void failed(String what, CoordinationException failure) {
                            String text = what + ": " + String.valueOf(failure.getMessage()).replace('\n', ' ');
                            if (!text.equals(lastFailure)) {
                                say(text);
                                lastFailure = text;
                            }
                        }
                    })
                    .work(leadership -> lead(leadership, member, writer, writes)).start();
        }
        say("started " + member);
        while (System.in.read() >= 0) {
            // any input is ignored; the end of it stops the worker
        }
        say("stopping");
        // a worker cut off may wait on its peers while closing: the test wants the process gone now
        Runtime.getRuntime().halt(0);
    }

    /** Writes one numbered record and row under a leadership. */
    private interface Writer {
        void write(Leadership leadership, String text) throws Exception;
    }

    /** While it leads: check, prepare, write (on a thread the interrupt does not reach), again. */
    private static void lead(Leadership leadership, MemberId member, Writer writer, ExecutorService writes) {
        for (long seq = 0; ; seq++) {
            if (!leadership.live()) {
                return;
            }
            WALL.park(PREPARE.toNanos()); // an interrupt ends the park, not the write about to go out
            String text = member + " " + leadership.token() + " " + seq + " " + WALL.nowMillis();
            Future<?> write = writes.submit(() -> {
                writer.write(leadership, text);
                return null;
            });
            Throwable failure = finish(write);
            if (failure != null) {
                say("refused " + leadership.role() + " " + leadership.token() + " seq " + seq + ": "
                        + failure.getClass().getSimpleName() + ": " + String.valueOf(failure.getMessage())
                        .replace('\n', ' '));
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
            }
        }
    }

    /** Waits for a write to finish, whatever interrupts come meanwhile, and returns its failure, if any. */
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

    private static void insert(Connection c, String table, String text) throws SQLException {
        String[] parts = text.split(" ");
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                + " (member, token, seq, wall) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, parts[0]);
            insert.setString(2, parts[1]);
            insert.setLong(3, Long.parseLong(parts[2]));
            insert.setLong(4, Long.parseLong(parts[3]));
            insert.executeUpdate();
        }
    }

    private static Connection connect(String jdbcUrl) throws SQLException {
        // a cut-off worker's statement waits on TCP like any client's; the bound only ends a hopeless one
        Connection c = DriverManager.getConnection(jdbcUrl + "&connectTimeout=2&socketTimeout=60");
        // a worker cut off inside its transaction holds the fence row's lock until the server ends its session,
        // and its successor's fence update waits on that lock: without this, past the test's 60 s bound (the
        // server would notice the dead client after TCP keepalive's two hours). docs/leadership.md says so
        try (Statement statement = c.createStatement()) {
            statement.execute("SET idle_in_transaction_session_timeout = 5000");
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** The fenced paths: the role's Kafka transactions and the JDBC fence. */
    private static final class Fenced implements Writer {
        private final KafkaCoordinationTransport transport;
        private final String jdbcUrl;
        private final String topic;
        private final String table;
        private final JdbcFence fence = JdbcFence.standard();

        Fenced(KafkaCoordinationTransport transport, String jdbcUrl, String topic, String table) {
            this.transport = transport;
            this.jdbcUrl = jdbcUrl;
            this.topic = topic;
            this.table = table;
        }

        @Override
        public void write(Leadership leadership, String text) throws Exception {
            Exception first = null;
            try {
                transport.inTransaction(leadership, tx -> tx.send(new ProducerRecord<>(topic, null,
                        text.getBytes(StandardCharsets.UTF_8))));
            } catch (RuntimeException e) {
                first = e;
            }
            // the row goes through the fence whatever happened to the record: the fence alone decides
            try (Connection c = connect(jdbcUrl)) {
                c.setAutoCommit(false);
                try {
                    fence.check(c, leadership.role(), leadership.token());
                    insert(c, table, text);
                    c.commit();
                } catch (FencedException | SQLException e) {
                    c.rollback();
                    throw e;
                }
            } catch (FencedException | SQLException e) {
                if (first != null) {
                    e.addSuppressed(first);
                }
                throw e;
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /** The negative control: a plain producer and an unfenced INSERT, with the leadership's token as data only. */
    private static final class Plain implements Writer {
        private final KafkaProducer<byte[], byte[]> producer;
        private final String jdbcUrl;
        private final String topic;
        private final String table;

        Plain(KafkaProducer<byte[], byte[]> producer, String jdbcUrl, String topic, String table) {
            this.producer = producer;
            this.jdbcUrl = jdbcUrl;
            this.topic = topic;
            this.table = table;
        }

        @Override
        public void write(Leadership leadership, String text) throws Exception {
            Future<?> sent = producer.send(new ProducerRecord<>(topic, null, text.getBytes(StandardCharsets.UTF_8)));
            try (Connection c = connect(jdbcUrl)) {
                insert(c, table, text);
            }
            sent.get();
        }
    }

    /** The roles' specification as the test passes it. */
    static String spec(Role role, boolean fenced, String topic, String table) {
        return String.join(":", List.of(role.name(), fenced ? "fenced" : "plain", topic, table));
    }
}
