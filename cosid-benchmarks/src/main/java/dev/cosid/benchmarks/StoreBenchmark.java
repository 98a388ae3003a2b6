package dev.cosid.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cosid.CosIdRuntime;
import dev.cosid.jdbc.JdbcDialect;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.MariaDbServer;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import dev.cosid.testkit.servers.ZooKeeperServer;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Lease operation latency (median, p99) and round trips per operation on every store, each on a
 * server the harness starts; then start-up storms of many runtimes on one namespace. Round trips are
 * counted: statements executed for the JDBC stores, the server's own command and packet counters for
 * Redis and ZooKeeper (summed over the nodes of a Redis Cluster and the servers of a ZooKeeper
 * ensemble), the gRPC calls every etcd member counts. Prints markdown tables.
 */
public final class StoreBenchmark {

    private static final Clock CLOCK = Clock.system();
    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);

    private StoreBenchmark() {
    }

    /** A store to measure and how to count its round trips. */
    private record Subject(String name, LeaseStore store, LongSupplier roundTrips, AutoCloseable resources) {
    }

    /**
     * Runs the store benchmarks.
     *
     * @param args operations per store (default 2000), storm sizes (default 64,256,1024), and the stores to
     *     measure by name, comma-separated, any case: sqlite, h2, postgresql, mariadb, redis, rediscluster,
     *     zookeeper, zookeeperensemble, etcd (default all)
     * @throws Exception when a server cannot start
     */
    public static void main(String[] args) throws Exception {
        int operations = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int[] storms = args.length > 1 ? Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray()
                : new int[] {64, 256, 1024};
        Set<String> only = args.length > 2 && !args[2].isBlank()
                ? Set.of(args[2].toLowerCase(Locale.ROOT).split(",")) : null;
        java.util.function.Predicate<String> wanted = name -> only == null
                || only.contains(name.toLowerCase(Locale.ROOT));
        Path dir = Files.createTempDirectory("cosid-bench");
        System.out.println("| store | acquire median | acquire p99 | renew median | renew p99 | release median | "
                + "release p99 | round trips per acquire / renew / release |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        List<ServerProcess> servers = new ArrayList<>();
        try {
            List<Subject> subjects = new ArrayList<>();
            if (wanted.test("SQLite")) {
                subjects.add(jdbc("SQLite", sqlite(dir.resolve("bench.db")), JdbcDialect.SQLITE));
            }
            if (wanted.test("H2")) {
                subjects.add(jdbc("H2 (file)", pool("jdbc:h2:" + dir.resolve("h2")), JdbcDialect.H2));
            }
            if (wanted.test("PostgreSQL")) {
                PostgresServer postgres = PostgresServer.started();
                servers.add(postgres);
                subjects.add(jdbc("PostgreSQL", pool(postgres.jdbcUrl()), JdbcDialect.POSTGRESQL));
            }
            if (wanted.test("MariaDB")) {
                MariaDbServer mariadb = MariaDbServer.started();
                servers.add(mariadb);
                subjects.add(jdbc("MariaDB", pool(mariadb.jdbcUrl()), JdbcDialect.MARIADB));
            }
            if (wanted.test("Redis")) {
                RedisServer redis = RedisServer.started();
                servers.add(redis);
                // commands a client sent: the scripts (their inner TIME/HGET/HSET run inside Redis)
                subjects.add(new Subject("Redis", LeaseStores.open(redis.url()), () -> scripts(List.of(redis.port())),
                        null));
            }
            if (wanted.test("RedisCluster")) {
                RedisCluster cluster = RedisCluster.started();
                servers.add(cluster);
                // every node's scripts: a redirected script would count on both nodes
                subjects.add(new Subject("Redis Cluster (3 primaries, 3 replicas)", LeaseStores.open(cluster.url()),
                        () -> scripts(cluster.ports()), null));
            }
            if (wanted.test("ZooKeeper")) {
                ZooKeeperServer zookeeper = ZooKeeperServer.started();
                servers.add(zookeeper);
                subjects.add(new Subject("ZooKeeper", LeaseStores.open(zookeeper.url()),
                        () -> serverCounter(zookeeper.port(), "srvr", "Received: "), null));
            }
            if (wanted.test("ZooKeeperEnsemble")) {
                ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.started();
                servers.add(ensemble);
                // packets all three servers received, less the srvr probes of this counter (each counts itself)
                long[] probes = {0};
                subjects.add(new Subject("ZooKeeper ensemble (3 servers)", LeaseStores.open(ensemble.url()), () -> {
                    probes[0] += ensemble.ports().size();
                    return ensemble.ports().stream().mapToLong(port -> serverCounter(port, "srvr", "Received: ")).sum()
                            - probes[0];
                }, null));
            }
            if (wanted.test("etcd")) {
                subjects.add(etcd(servers));
            }
            for (Subject subject : subjects) {
                measure(subject, operations);
            }
            System.out.println();
            System.out.println("| store | runtimes | time until all hold distinct slots | round trips per runtime start |");
            System.out.println("|---|---|---|---|");
            for (Subject subject : subjects) {
                if (subject.name().equals("Redis") || subject.name().equals("PostgreSQL")
                        || subject.name().equals("etcd") || subject.name().startsWith("Redis Cluster")) {
                    for (int size : storms) {
                        storm(subject, size);
                    }
                }
            }
            for (Subject subject : subjects) {
                subject.store().close();
                if (subject.resources() != null) {
                    subject.resources().close();
                }
            }
        } finally {
            servers.forEach(ServerProcess::close);
        }
    }

    /** A three-member etcd cluster; its round trips are the unary gRPC calls its members started. */
    private static Subject etcd(List<ServerProcess> servers) {
        EtcdCluster etcd = EtcdCluster.started();
        servers.add(etcd);
        return new Subject("etcd", LeaseStores.open(etcd.url()), () -> etcd.members().stream()
                .mapToLong(member -> etcdCalls(member.port())).sum(), null);
    }

    /** Sums {@code grpc_server_started_total} of the unary calls in a member's metrics. */
    private static long etcdCalls(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.getOutputStream().write("GET /metrics HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            String text = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            return text.lines().filter(line -> line.startsWith("grpc_server_started_total{")
                            && line.contains("grpc_type=\"unary\""))
                    .mapToLong(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SQLiteDataSource sqlite(Path file) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(10_000);
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        SQLiteDataSource dataSource = new SQLiteDataSource(config);
        dataSource.setUrl("jdbc:sqlite:" + file);
        return dataSource;
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    private static Subject jdbc(String name, javax.sql.DataSource dataSource, JdbcDialect dialect) {
        CountingDataSource counting = new CountingDataSource(dataSource);
        JdbcLeaseStore store = new JdbcLeaseStore(counting, dialect, name, true);
        return new Subject(name, store, counting.executions::get, dataSource instanceof AutoCloseable
                ? (AutoCloseable) dataSource : null);
    }

    /** Scripts the Redis servers on these ports ran. */
    private static long scripts(List<Integer> ports) {
        long sum = 0;
        for (int port : ports) {
            sum += serverCounter(port, "INFO commandstats\r\n", "cmdstat_evalsha:calls=")
                    + serverCounter(port, "INFO commandstats\r\n", "cmdstat_eval:calls=");
        }
        return sum;
    }

    private static long serverCounter(int port, String command, String field) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            socket.getOutputStream().write(command.getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            int at = text.indexOf(field);
            if (at < 0) {
                return 0;
            }
            int end = at + field.length();
            while (end < text.length() && Character.isDigit(text.charAt(end))) {
                end++;
            }
            return Long.parseLong(text.substring(at + field.length(), end));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void measure(Subject subject, int operations) {
        LeaseStore store = subject.store();
        String ns = "bench-" + Long.toHexString(CLOCK.monotonicNanos());
        store.register(ns, new NamespaceRecord(1024, 1_000));
        long[][] nanos = new long[3][operations];
        long[] trips = new long[3];
        for (int i = 0; i < operations + 200; i++) {
            boolean warm = i < 200;
            int slot = i % 1024;
            long before = subject.roundTrips().getAsLong();
            long start = CLOCK.monotonicNanos();
            SlotLease lease = store.acquire(ns, slot, Owner.of("bench-" + i), TERMS).orElseThrow();
            long acquired = CLOCK.monotonicNanos();
            long afterAcquire = subject.roundTrips().getAsLong();
            SlotLease renewed = store.renew(lease, TERMS).orElseThrow();
            long renewedAt = CLOCK.monotonicNanos();
            long afterRenew = subject.roundTrips().getAsLong();
            store.release(renewed, renewed.floor());
            long released = CLOCK.monotonicNanos();
            long afterRelease = subject.roundTrips().getAsLong();
            if (!warm) {
                int at = i - 200;
                nanos[0][at] = acquired - start;
                nanos[1][at] = renewedAt - acquired;
                nanos[2][at] = released - renewedAt;
                trips[0] += afterAcquire - before;
                trips[1] += afterRenew - afterAcquire;
                trips[2] += afterRelease - afterRenew;
            }
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %.2f / %.2f / %.2f |%n", subject.name(),
                micros(nanos[0], 50), micros(nanos[0], 99), micros(nanos[1], 50), micros(nanos[1], 99),
                micros(nanos[2], 50), micros(nanos[2], 99), trips[0] / (double) operations,
                trips[1] / (double) operations, trips[2] / (double) operations);
    }

    private static String micros(long[] values, int percentile) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        long value = sorted[Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1)];
        return String.format(Locale.ROOT, "%.0f µs", value / 1_000.0);
    }

    private static void storm(Subject subject, int size) throws Exception {
        String ns = "storm-" + size + "-" + Long.toHexString(CLOCK.monotonicNanos());
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(size, 256));
        List<CosIdRuntime> runtimes = new ArrayList<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<CosIdRuntime>> started = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                String key = "storm-" + i;
                started.add(pool.submit(() -> {
                    go.await();
                    return CosIdRuntime.builder().namespace(ns).store(subject.store()).ownerKey(key)
                            .ttl(Duration.ofMinutes(5)).acquireTimeout(Duration.ofMinutes(2)).start();
                }));
            }
            long trips = subject.roundTrips().getAsLong();
            long begin = CLOCK.monotonicNanos();
            go.countDown();
            Set<Integer> slots = new HashSet<>();
            for (Future<CosIdRuntime> future : started) {
                CosIdRuntime runtime = future.get();
                runtimes.add(runtime);
                slots.add(runtime.lease().slot());
            }
            long millis = (CLOCK.monotonicNanos() - begin) / 1_000_000;
            long used = subject.roundTrips().getAsLong() - trips;
            if (slots.size() != size) {
                throw new IllegalStateException(size + " runtimes hold only " + slots.size() + " distinct slots");
            }
            System.out.printf(Locale.ROOT, "| %s | %d | %d ms (all %d slots distinct) | %.1f |%n", subject.name(), size,
                    millis, slots.size(), used / (double) size);
        } finally {
            runtimes.forEach(CosIdRuntime::close);
            pool.shutdownNow();
        }
    }
}
