package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RolePartitioner;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.KafkaCluster;
import dev.cosid.testkit.servers.StarNetwork;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Leadership proven with real processes: three leader workers ({@link LeaderWorker}), each a JVM on a host of its
 * own of a star network, campaign on a three-node Kafka cluster of processes (each node on a host of its own) for
 * two roles: one whose leader writes through the fenced paths (the role's Kafka transactions, the JDBC fence into a
 * PostgreSQL on a fifth host), one whose leader writes the same with a plain producer and an unfenced INSERT (the
 * negative control). Every fault kind strikes: the leader frozen past its lease (SIGSTOP, then SIGCONT), the leader
 * killed (SIGKILL, restarted), the broker leading the role's {@code __transaction_state} partition and the one
 * leading its {@code __coordination_state} partition killed and restarted, the leader's host cut off from every
 * broker past its lease and healed, a broker cut off from the other two and healed. Then the output topics
 * ({@code read_committed}) and the tables are checked: through the fenced paths no write of a deposed leader lands
 * after its successor's first; through the plain ones some do, or the run does not count.
 *
 * <p>The short run (the test command) strikes with every kind once; {@code -Dcosid.partition.long=true} strikes
 * in seeded random order, every kind in each round, for {@code cosid.leader.minutes} (10) minutes, the seed
 * printed ({@code -Dcosid.leader.seed=N} replays the order).
 */
class KafkaLeaderFaultTest {

    /** The lease of every worker: short, so that a fault outlasts it within seconds. */
    static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration RUN = Duration.ofMinutes(Long.getLong("cosid.leader.minutes", 10));
    private static final Path RUNS = Path.of("target", "partition-runs", "leader-faults");
    private static final Clock WALL = Clock.system();
    private static final Duration BOUND = Duration.ofSeconds(60);

    /** The kinds of fault. */
    enum Fault {
        PAUSE_LEADER, KILL_LEADER, KILL_TRANSACTION_COORDINATOR, KILL_COORDINATION_LEADER, CUT_LEADER, CUT_BROKER
    }

    /** One fault as it struck: when it began and ended, by the machine's clock. */
    record Struck(Fault fault, String target, long began, long ended) {
    }

    /** One worker process and its log. */
    private static final class Worker {
        final String name;
        final StarNetwork.Host host;
        final Path log;
        Process process;

        Worker(String name, StarNetwork.Host host, Path log) {
            this.name = name;
            this.host = host;
            this.log = log;
        }

        /** When the worker last said it was elected for the role and has not said revoked since, or empty. */
        Optional<Long> leadingSince(Role role) {
            if (process == null || !process.isAlive()) {
                return Optional.empty();
            }
            List<String> lines;
            try {
                lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            } catch (IOException | java.io.UncheckedIOException e) {
                return Optional.empty();
            }
            for (int i = lines.size() - 1; i >= 0; i--) {
                String[] parts = lines.get(i).split(" ");
                if (parts.length >= 3 && parts[2].equals(role.name())) {
                    if (parts[1].equals("elected")) {
                        return Optional.of(Long.parseLong(parts[0]));
                    }
                    if (parts[1].equals("revoked")) {
                        return Optional.empty();
                    }
                }
                if (parts.length >= 2 && parts[1].equals("started")) {
                    return Optional.empty(); // an earlier life's lines
                }
            }
            return Optional.empty();
        }
    }

    private final Role fencedRole = Role.of("fenced-" + Long.toHexString(WALL.nowMillis()));
    private final Role plainRole = Role.of("plain-" + Long.toHexString(WALL.nowMillis()));
    private final List<Worker> workers = new ArrayList<>();
    private final List<Struck> struck = new ArrayList<>();
    private StarNetwork net;
    private KafkaCluster kafka;
    private StarPostgres postgres;
    private int coordinationPartitions;
    private long began;
    private CompletableFuture<Void> restarting;

    @Test
    void aDeposedLeadersFencedWritesNeverLandAfterItsSuccessorsFirstUnderEveryKindOfFault() throws Exception {
        began = WALL.nowMillis();
        try (StarNetwork star = StarNetwork.created("kafka-1", "kafka-2", "kafka-3", "pg", "worker-1", "worker-2",
                "worker-3")) {
            net = star;
            // the server starts while the cluster does
            CompletableFuture<StarPostgres> pgStart = CompletableFuture.supplyAsync(() -> StarPostgres.started(star,
                    star.host("pg")));
            try (KafkaCluster cluster = KafkaCluster.started(star, star.hosts().subList(0, 3))) {
                kafka = cluster;
                postgres = joined(pgStart);
                try {
                    run();
                } catch (Exception | Error e) {
                    dumpThreads(); // what each worker waits on, in its log
                    throw e;
                }
            } finally {
                pgStart.handle((pg, failure) -> {
                    if (pg != null) {
                        pg.close();
                    }
                    return null;
                }).join();
            }
        } finally {
            stopWorkers();
        }
    }

    private static <T> T joined(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error failure) {
                throw failure;
            }
            throw e;
        }
    }

    private void run() throws Exception {
        prepare();
        for (int i = 1; i <= 3; i++) {
            Worker worker = new Worker("worker-" + i, net.host("worker-" + i), RUNS.resolve("worker-" + i + ".log"));
            workers.add(worker);
            start(worker);
        }
        awaitProgress(fencedRole, "the first leader writing");
        awaitProgress(plainRole, "the control's first leader writing");
        coordinationPartitions = partitionsOf(KafkaCoordinationTransport.TOPIC);
        // a broker restarts while the next fault, on a worker, strikes
        List<Fault> order = new ArrayList<>(List.of(Fault.KILL_TRANSACTION_COORDINATOR, Fault.PAUSE_LEADER,
                Fault.KILL_COORDINATION_LEADER, Fault.KILL_LEADER, Fault.CUT_BROKER, Fault.CUT_LEADER));
        if (PartitionRun.LONG) {
            long seed = Long.getLong("cosid.leader.seed", WALL.nowMillis());
            System.out.println("KafkaLeaderFaultTest seed " + seed + " (replay: -Dcosid.leader.seed=" + seed + ")");
            Random random = new Random(seed);
            long end = WALL.nowMillis() + RUN.toMillis();
            while (WALL.nowMillis() < end) {
                Collections.shuffle(order, random);
                for (Fault fault : order) {
                    strike(fault);
                    Await.elapse(Duration.ofMillis(random.nextInt(3000)));
                }
            }
        } else {
            for (Fault fault : order) {
                strike(fault);
            }
        }
        joinRestart();
        stopWorkers();
        check();
    }

    /** Waits for a broker's restart (or the cluster's recovery after a heal) started in the background. */
    private void joinRestart() {
        if (restarting != null) {
            joined(restarting);
            restarting = null;
        }
    }

    private void prepare() throws Exception {
        Files.createDirectories(RUNS);
        for (int i = 1; i <= 3; i++) {
            Files.deleteIfExists(RUNS.resolve("worker-" + i + ".log"));
        }
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topicOf(fencedRole), 1, (short) 3),
                    new NewTopic(topicOf(plainRole), 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
        }
        try (Connection c = DriverManager.getConnection(postgres.controlUrl());
                Statement statement = c.createStatement()) {
            for (Role role : List.of(fencedRole, plainRole)) {
                statement.execute("CREATE TABLE " + tableOf(role) + " (id BIGSERIAL PRIMARY KEY, member TEXT, "
                        + "token TEXT, seq BIGINT, wall BIGINT)");
            }
            JdbcFence.standard().createTable(c);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000));
    }

    private int partitionsOf(String topic) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().size();
        }
    }

    private static String topicOf(Role role) {
        return role.name() + "-out";
    }

    private static String tableOf(Role role) {
        return role.name().replace('-', '_') + "_rows";
    }

    private void start(Worker worker) {
        worker.process = net.start(worker.host, ChildJvm.command(List.of("-Xmx96m"), LeaderWorker.class.getName(),
                List.of(kafka.bootstrapServers(), worker.name, Long.toString(LEASE.toMillis()), postgres.url(),
                        LeaderWorker.spec(fencedRole, true, topicOf(fencedRole), tableOf(fencedRole)),
                        LeaderWorker.spec(plainRole, false, topicOf(plainRole), tableOf(plainRole)))), worker.log);
    }

    private void stopWorkers() {
        for (Worker worker : workers) {
            if (worker.process != null && worker.process.isAlive()) {
                resume(worker); // a frozen worker cannot read the end of its input
                try {
                    worker.process.getOutputStream().close();
                } catch (IOException e) {
                    // it is gone already
                }
            }
        }
        for (Worker worker : workers) {
            if (worker.process != null) {
                try {
                    if (!worker.process.waitFor(10, TimeUnit.SECONDS)) {
                        worker.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    /** Appends each running worker's threads to its log ({@code jcmd PID Thread.print}). */
    private void dumpThreads() {
        for (Worker worker : workers) {
            if (worker.process != null && worker.process.isAlive()) {
                resume(worker);
                try {
                    Process jcmd = new ProcessBuilder("jcmd", Long.toString(worker.process.pid()), "Thread.print")
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
                                    worker.log.toFile())).start();
                    jcmd.waitFor(20, TimeUnit.SECONDS);
                } catch (IOException e) {
                    // no dump: the failure stands as it is
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The worker that leads the role now by its own word, the latest elected if two say so (one frozen). */
    private Optional<Worker> leaderOf(Role role) {
        Worker found = null;
        long since = Long.MIN_VALUE;
        for (Worker worker : workers) {
            Optional<Long> leading = worker.leadingSince(role);
            if (leading.isPresent() && leading.get() > since) {
                found = worker;
                since = leading.get();
            }
        }
        return Optional.ofNullable(found);
    }

    /** The target of a fault on the leader: the worker leading the fenced role. */
    private Worker leader() {
        Await.until(() -> leaderOf(fencedRole).isPresent(), BOUND, "a leader of " + fencedRole);
        Worker fenced = leaderOf(fencedRole).orElseThrow();
        return fenced;
    }

    /** Waits until a leader of the role has landed three more rows than the table held. */
    private void awaitProgress(Role role, String what) {
        long before = rows(role);
        Await.until(() -> rows(role) >= before + 3, BOUND, () -> what + ": " + role + " rows stayed at " + rows(role)
                + "; see " + RUNS);
    }

    private long rows(Role role) {
        try (Connection c = DriverManager.getConnection(postgres.controlUrl());
                Statement statement = c.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + tableOf(role))) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            return -1;
        }
    }

    private void strike(Fault fault) throws Exception {
        long struckAt = WALL.nowMillis();
        String target;
        switch (fault) {
            case PAUSE_LEADER -> {
                Worker worker = leader();
                // the control's leader is frozen too when another worker leads it: a run whose control leader
                // was never frozen showed no stale control write (2 of 9 runs on a loaded machine)
                Worker control = leaderOf(plainRole).filter(other -> other != worker).orElse(null);
                target = worker.name + (control == null ? "" : " and " + control.name + " (the control's leader)");
                signal("STOP", worker);
                if (control != null) {
                    signal("STOP", control);
                }
                Await.until(() -> leaderOf(fencedRole).filter(other -> other != worker).isPresent(), BOUND,
                        "a successor of the frozen " + worker.name);
                awaitProgress(fencedRole, "the successor of the frozen " + worker.name + " writing");
                if (control != null) {
                    Await.until(() -> leaderOf(plainRole).filter(other -> other != control).isPresent(), BOUND,
                            "a successor of the frozen control leader " + control.name);
                    awaitProgress(plainRole, "the successor of the frozen control leader " + control.name
                            + " writing");
                    resume(control);
                }
                resume(worker);
            }
            case KILL_LEADER -> {
                Worker worker = leader();
                target = worker.name;
                worker.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                start(worker);
            }
            case KILL_TRANSACTION_COORDINATOR -> {
                joinRestart();
                int partition = kafka.transactionStatePartition(fencedRole.name());
                target = killAndRestart(KafkaCluster.TRANSACTION_STATE, partition);
            }
            case KILL_COORDINATION_LEADER -> {
                joinRestart();
                int partition = RolePartitioner.partitionFor(fencedRole, coordinationPartitions);
                target = killAndRestart(KafkaCoordinationTransport.TOPIC, partition);
            }
            case CUT_LEADER -> {
                Worker worker = leader();
                target = worker.name;
                long cut = WALL.nowMillis();
                net.cut(worker.host);
                Await.until(() -> leaderOf(fencedRole).filter(other -> other != worker).isPresent(), BOUND,
                        "a successor of the cut-off " + worker.name);
                awaitProgress(fencedRole, "the successor of the cut-off " + worker.name + " writing");
                Await.elapse(Duration.ofMillis(Math.max(0, cut + LEASE.toMillis() + 1000 - WALL.nowMillis())));
                net.heal(worker.host);
            }
            case CUT_BROKER -> {
                joinRestart();
                int node = kafka.leaderOf(KafkaCoordinationTransport.TOPIC,
                        RolePartitioner.partitionFor(fencedRole, coordinationPartitions));
                target = "kafka-" + node;
                net.cut(kafka.hostOf(node));
                Await.until(() -> kafka.leaderOf(KafkaCoordinationTransport.TOPIC,
                        RolePartitioner.partitionFor(fencedRole, coordinationPartitions)) != node, BOUND,
                        "the other two electing a new leader of the role's partition");
                awaitProgress(fencedRole, "the leader writing with kafka-" + node + " cut off");
                net.heal(kafka.hostOf(node));
                restarting = CompletableFuture.runAsync(kafka::awaitReady);
            }
            default -> throw new IllegalArgumentException(fault.toString());
        }
        awaitProgress(fencedRole, "a leader writing after " + fault);
        awaitProgress(plainRole, "the control's leader writing after " + fault);
        struck.add(new Struck(fault, target, struckAt, WALL.nowMillis()));
        System.out.println(struckAt + " struck " + fault + " on " + target + " in " + (WALL.nowMillis() - struckAt)
                + " ms");
    }

    /** Kills the broker leading a partition, waits until another leads it, restarts it in the background. */
    private String killAndRestart(String topic, int partition) {
        int node = kafka.leaderOf(topic, partition);
        kafka.kill(node);
        Await.until(() -> kafka.leaderOf(topic, partition) != node, BOUND, "another leader of " + topic + "-"
                + partition + " than the killed kafka-" + node);
        restarting = CompletableFuture.runAsync(() -> kafka.restart(node));
        return "kafka-" + node + " (" + topic + "-" + partition + ")";
    }

    private static void signal(String signal, Worker worker) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(worker.process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + worker.process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void resume(Worker worker) {
        if (worker.process.isAlive()) {
            signal("CONT", worker);
        }
    }

    private List<LeaderChecker.Write> topic(Role role) {
        String topic = topicOf(role);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
            List<LeaderChecker.Write> writes = new ArrayList<>();
            while (consumer.position(partition, Duration.ofSeconds(30)) < end) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    writes.add(LeaderChecker.Write.parse(new String(record.value(), StandardCharsets.UTF_8)));
                }
            }
            return writes;
        }
    }

    private List<LeaderChecker.Write> table(Role role) throws SQLException {
        List<LeaderChecker.Write> writes = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(postgres.controlUrl());
                Statement statement = c.createStatement();
                ResultSet rows = statement.executeQuery("SELECT member, token, seq, wall FROM " + tableOf(role)
                        + " ORDER BY id")) {
            while (rows.next()) {
                writes.add(LeaderChecker.Write.parse(rows.getString(1) + " " + rows.getString(2) + " "
                        + rows.getLong(3) + " " + rows.getLong(4)));
            }
        }
        return writes;
    }

    private void check() throws Exception {
        // a plain write held up by a frozen or cut-off worker lands once it runs again: give it time to
        Await.elapse(Duration.ofSeconds(1));
        LeaderChecker.Verdict fencedTopic = LeaderChecker.check(topic(fencedRole));
        LeaderChecker.Verdict fencedTable = LeaderChecker.check(table(fencedRole));
        LeaderChecker.Verdict plainTopic = LeaderChecker.check(topic(plainRole));
        LeaderChecker.Verdict plainTable = LeaderChecker.check(table(plainRole));
        long refused = workers.stream().mapToLong(worker -> count(worker.log, "refused " + fencedRole.name())).sum();
        long revokedFailing = workers.stream().mapToLong(worker -> count(worker.log, "revoked " + fencedRole.name(),
                "RENEWALS_FAILING")).sum();
        Map<Fault, List<Struck>> byKind = new EnumMap<>(Fault.class);
        struck.forEach(one -> byKind.computeIfAbsent(one.fault(), kind -> new ArrayList<>()).add(one));
        StringBuilder perKind = new StringBuilder();
        for (Map.Entry<Fault, List<Struck>> kind : byKind.entrySet()) {
            List<LeaderChecker.Change> changes = fencedTable.changes().stream().filter(change -> kind.getValue()
                    .stream().anyMatch(one -> change.to().wall() >= one.began() && change.from().wall() <= one.ended()))
                    .collect(Collectors.toList());
            perKind.append("\n  ").append(kind.getKey()).append(": ").append(kind.getValue().size())
                    .append(" struck, ").append(changes.size()).append(" leader changes, longest without a leader ")
                    .append(changes.stream().mapToLong(LeaderChecker.Change::gapMillis).max().orElse(0)).append(" ms");
        }
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("wall", (WALL.nowMillis() - began) / 1000 + " s");
        figures.put("faults", struck.size());
        figures.put("fenced topic", fencedTopic);
        figures.put("fenced table", fencedTable);
        figures.put("fenced writes refused", refused);
        figures.put("revocations for failing renewals", revokedFailing);
        figures.put("control topic", plainTopic);
        figures.put("control table", plainTable);
        String text = "KafkaLeaderFaultTest" + (PartitionRun.LONG ? " (long)" : "") + ": lease " + LEASE.toMillis()
                + " ms, stagger " + LEASE.dividedBy(6).toMillis() + " ms; " + figures + perKind;
        PartitionRun.record(text);
        assertEquals(Fault.values().length, byKind.size(), "every kind of fault struck: " + text);
        assertEquals(List.of(), fencedTopic.stale(), "no record of a deposed leader after its successor's: " + text);
        assertEquals(List.of(), fencedTable.stale(), "no row of a deposed leader after its successor's: " + text);
        assertTrue(fencedTable.changes().size() >= 3, "the leader changed under the faults: " + text);
        assertTrue(plainTopic.stale().size() + plainTable.stale().size() > 0,
                "the negative control shows stale writes landing, or the run does not count: " + text);
    }

    private static long count(Path log, String... words) {
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .filter(line -> java.util.Arrays.stream(words).allMatch(line::contains)).count();
        } catch (IOException e) {
            return 0;
        }
    }
}
