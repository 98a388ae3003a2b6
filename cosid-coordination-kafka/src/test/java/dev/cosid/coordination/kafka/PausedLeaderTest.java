package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Scheduler;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two leaders on a real broker and a real PostgreSQL: the first is frozen past its deadline (its timers and its
 * work stop, as in a GC pause) right after it checked that it leads and before it writes; the second takes
 * over and writes; then the first wakes up and writes what it was about to. Through the fenced paths (the
 * role's Kafka transactions, the JDBC fence) none of its writes lands after the successor's first; through a
 * plain producer and a plain insert (the negative control) they do.
 */
class PausedLeaderTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(3), Duration.ofSeconds(1),
            Duration.ofMillis(500));
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);
    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }

    /** How one leader writes a numbered record and row while it leads. */
    private interface Writer {
        void write(KafkaCoordinationTransport transport, Leadership leadership, String member, int seq) throws Exception;
    }

    /** A leader whose timers and work can be frozen together, as a process is by a long GC pause. */
    private static final class Leader implements AutoCloseable {
        final String name;
        final FreezableScheduler scheduler = new FreezableScheduler("cosid-test-" + UUID.randomUUID());
        final KafkaCoordinationTransport transport;
        final List<String> failures = new CopyOnWriteArrayList<>();
        final AtomicInteger written = new AtomicInteger();
        volatile CountDownLatch frozen = new CountDownLatch(0);
        final CountDownLatch atPausePoint = new CountDownLatch(1);
        volatile boolean freezeAtNextWrite;
        volatile boolean staleAttempted;
        final java.util.concurrent.ExecutorService writes = java.util.concurrent.Executors.newSingleThreadExecutor();
        Elector elector;

        Leader(String name) {
            this.name = name;
            this.transport = KafkaCoordinationTransport.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap()), 1, CONFIG.duration(), Duration.ofSeconds(10));
        }

        Leader start(Role role, Writer writer) {
            elector = Elector.builder(transport, role, MemberId.of(name)).config(CONFIG).scheduler(scheduler)
                    .retryInterval(Duration.ofMillis(200)).work(leadership -> {
                        for (int seq = 0; ; seq++) {
                            leadership.requireLive(); // the leader checks that it leads...
                            if (freezeAtNextWrite) {
                                freezeAtNextWrite = false;
                                atPausePoint.countDown();
                                awaitThaw(); // ...and freezes here, as a GC pause would stop it
                                staleAttempted = true;
                            }
                            // ...then writes what it was about to, on a thread the elector's interrupt does not
                            // reach: the write is on its way whatever the elector notices meanwhile
                            int n = seq;
                            Throwable failure = finish(writes.submit(() -> {
                                writer.write(transport, leadership, name, n);
                                return null;
                            }));
                            if (failure instanceof FencedException) {
                                failures.add(failure.getMessage());
                                return;
                            }
                            if (failure != null) {
                                throw new IllegalStateException(failure);
                            }
                            written.incrementAndGet();
                            Thread.sleep(100);
                        }
                    }).start();
            return this;
        }

        /** Waits for a write to finish, whatever interrupts come meanwhile, and returns its failure, if any. */
        private static Throwable finish(java.util.concurrent.Future<?> write) {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        write.get();
                        return null;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (java.util.concurrent.ExecutionException e) {
                        return e.getCause();
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** Waits until thawed, whatever interrupts come meanwhile: a frozen thread does not see them. */
        private void awaitThaw() {
            boolean interrupted = false;
            while (true) {
                try {
                    frozen.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        /** Freezes the leader right after its next check that it leads, and its timers with it. */
        void freeze() throws InterruptedException {
            frozen = new CountDownLatch(1);
            freezeAtNextWrite = true;
            assertTrue(atPausePoint.await(30, TimeUnit.SECONDS), name + " reached its next write");
            scheduler.freeze();
        }

        void thaw() {
            frozen.countDown();
            scheduler.thaw();
        }

        @Override
        public void close() {
            thaw();
            if (elector != null) {
                elector.close();
            }
            scheduler.close();
            writes.shutdownNow();
            transport.close();
        }
    }

    /** A scheduler whose tasks wait while it is frozen and run in their order once it thaws. */
    private static final class FreezableScheduler implements Scheduler {
        private final Scheduler delegate;
        private final List<Runnable> held = new ArrayList<>();
        private boolean frozen;

        FreezableScheduler(String name) {
            this.delegate = Scheduler.newSingleThread(name);
        }

        @Override
        public Cancellable schedule(Duration delay, Runnable task) {
            boolean[] cancelled = new boolean[1];
            Cancellable inner = delegate.schedule(delay, () -> {
                synchronized (this) {
                    if (cancelled[0]) {
                        return;
                    }
                    if (frozen) {
                        held.add(task);
                        return;
                    }
                }
                task.run();
            });
            return () -> {
                synchronized (this) {
                    cancelled[0] = true;
                }
                inner.cancel();
            };
        }

        synchronized void freeze() {
            frozen = true;
        }

        void thaw() {
            List<Runnable> due;
            synchronized (this) {
                frozen = false;
                due = new ArrayList<>(held);
                held.clear();
            }
            due.forEach(task -> delegate.schedule(Duration.ZERO, task));
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    /** One written record or row: who wrote it, under which token, in the order the store holds them. */
    private record Write(String member, FencingToken token, int seq) {
        static Write parse(String text) {
            String[] parts = text.split(" ");
            return new Write(parts[0], FencingToken.parse(parts[1]), Integer.parseInt(parts[2]));
        }
    }

    /** The writes of a deposed leader that came after its successor's first, in the store's order. */
    private static List<Write> staleWrites(List<Write> order) {
        List<Write> stale = new ArrayList<>();
        FencingToken newest = FencingToken.NO_EPOCH;
        for (Write write : order) {
            if (newest.supersedes(write.token())) {
                stale.add(write);
            }
            newest = write.token().supersedes(newest) ? write.token() : newest;
        }
        return stale;
    }

    private static String newTopic() throws Exception {
        String topic = "out-" + UUID.randomUUID().toString().substring(0, 8);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        return topic;
    }

    private static List<Write> topic(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(), ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<Write> writes = new ArrayList<>();
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    writes.add(Write.parse(new String(record.value(), StandardCharsets.UTF_8)));
                }
            }
            return writes;
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(POSTGRES.server().jdbcUrl());
    }

    private static String newTable() throws SQLException {
        String table = "rows_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = connect(); Statement statement = c.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, member TEXT, token TEXT, "
                    + "seq INTEGER)");
            JdbcFence.standard().createTable(c);
        }
        return table;
    }

    private static List<Write> table(String table) throws SQLException {
        List<Write> writes = new ArrayList<>();
        try (Connection c = connect(); Statement statement = c.createStatement();
             ResultSet rows = statement.executeQuery("SELECT member, token, seq FROM " + table + " ORDER BY id")) {
            while (rows.next()) {
                writes.add(new Write(rows.getString(1), FencingToken.parse(rows.getString(2)), rows.getInt(3)));
            }
        }
        return writes;
    }

    private static void insert(Connection c, String table, String member, FencingToken token, int seq)
            throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                + " (member, token, seq) VALUES (?, ?, ?)")) {
            insert.setString(1, member);
            insert.setString(2, token.toString());
            insert.setInt(3, seq);
            insert.executeUpdate();
        }
    }

    private static byte[] value(String member, FencingToken token, int seq) {
        return (member + " " + token + " " + seq).getBytes(StandardCharsets.UTF_8);
    }

    /** Runs the scenario and returns the writes that landed, in the topic's order and in the table's. */
    private final AtomicInteger refused = new AtomicInteger();

    private List<List<Write>> pauseTheLeaderPastItsDeadline(Role role, Writer writer, String topic, String table)
            throws Exception {
        try (Leader a = new Leader("a").start(role, writer)) {
            Await.until(() -> a.written.get() >= 3, Duration.ofSeconds(30), "a leads and writes");
            try (Leader b = new Leader("b").start(role, writer)) {
                Await.until(() -> b.elector.leader().isPresent(), Duration.ofSeconds(30), "b is in the roster");
                a.freeze();
                Await.until(() -> b.written.get() >= 2, Duration.ofSeconds(30), "b took over and wrote");
                int before = a.written.get();
                a.thaw(); // a writes what it was about to, still holding its old epoch
                Await.until(() -> a.staleAttempted && (a.written.get() > before || !a.failures.isEmpty()),
                        Duration.ofSeconds(30), "a tried its write");
                Await.until(() -> !a.elector.leading(), Duration.ofSeconds(30), "a's elector noticed");
                refused.set(a.failures.size());
                int bNow = b.written.get();
                Await.until(() -> b.written.get() > bNow + 1, Duration.ofSeconds(30), "b goes on");
            }
        }
        return List.of(topic(topic), table(table));
    }

    @Test
    void aDeposedLeadersFencedWritesNeverLandAfterItsSuccessorsFirst() throws Exception {
        Role role = Role.of("fenced-" + UUID.randomUUID().toString().substring(0, 8));
        String topic = newTopic();
        String table = newTable();
        JdbcFence fence = JdbcFence.standard();
        List<List<Write>> landed = pauseTheLeaderPastItsDeadline(role, (transport, leadership, member, seq) -> {
            transport.inTransaction(leadership, tx -> tx.send(new ProducerRecord<>(topic, null,
                    value(member, leadership.token(), seq))));
            try (Connection c = connect()) {
                c.setAutoCommit(false);
                try {
                    fence.check(c, leadership.role(), leadership.token());
                    insert(c, table, member, leadership.token(), seq);
                    c.commit();
                } catch (FencedException e) {
                    c.rollback();
                    throw e;
                }
            }
        }, topic, table);
        assertTrue(refused.get() > 0, "the write a attempted after waking was refused");
        for (List<Write> order : landed) {
            assertTrue(order.stream().anyMatch(w -> w.member().equals("a")), "a wrote: " + order);
            assertTrue(order.stream().anyMatch(w -> w.member().equals("b")), "b wrote: " + order);
            assertEquals(List.of(), staleWrites(order), "no write of a deposed leader after its successor's: " + order);
        }
    }

    @Test
    void withAPlainProducerAndAPlainInsertTheDeposedLeadersWritesLandLate() throws Exception {
        Role role = Role.of("plain-" + UUID.randomUUID().toString().substring(0, 8));
        String topic = newTopic();
        String table = newTable();
        try (KafkaProducer<byte[], byte[]> plain = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(), ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            List<List<Write>> landed = pauseTheLeaderPastItsDeadline(role, (transport, leadership, member, seq) -> {
                plain.send(new ProducerRecord<>(topic, null, value(member, leadership.token(), seq))).get();
                try (Connection c = connect()) {
                    insert(c, table, member, leadership.token(), seq);
                }
            }, topic, table);
            for (List<Write> order : landed) {
                List<Write> stale = staleWrites(order);
                assertTrue(!stale.isEmpty() && stale.stream().allMatch(w -> w.member().equals("a")),
                        "the deposed leader's write landed after its successor's: " + order);
            }
        }
    }
}
