package dev.cosid.partition;

import static dev.cosid.testkit.servers.PostgresServer.asServerUser;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.PostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL primary on side A and its hot standby on side B streaming the WAL over the link between the
 * sides: asynchronous, or synchronous ({@code synchronous_standby_names = '*'} on the primary). A cut leaves the
 * primary alive on A; {@link #promote()} runs {@code pg_ctl promote} on B's standby.
 */
final class PostgresSetup implements AutoCloseable {

    private final Node primary;
    private final Node standby;

    private PostgresSetup(NetworkPartition net, Path bin) {
        primary = new Node(net, net.a(), bin, null);
        standby = new Node(net, net.b(), bin, primary);
    }

    /**
     * Starts the primary and its standby and waits until the standby streams (and, when synchronous, is the
     * synchronous one).
     */
    static PostgresSetup started(NetworkPartition net, boolean synchronous) {
        PostgresSetup setup = new PostgresSetup(net, PostgresServer.bin());
        try {
            setup.primary.begin();
            setup.standby.begin();
            if (synchronous) {
                setup.primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
                setup.primary.sql("SELECT pg_reload_conf()");
                Await.until(() -> setup.primary.sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")
                        .equals("1"), Duration.ofSeconds(30), "the standby becoming synchronous");
            }
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
        return setup;
    }

    /** Returns the two-host URL asking for the primary, with the options. */
    String url(String options) {
        return "jdbc:postgresql://" + primary.address() + "," + standby.address()
                + "/postgres?user=postgres&targetServerType=primary" + (options.isEmpty() ? "" : "&" + options);
    }

    /** Promotes the standby on side B and waits until it takes writes. */
    void promote() {
        standby.promote();
    }

    /** Runs one SQL command on the primary (the old one, after a promotion) through its socket. */
    String primarySql(String sql) {
        return primary.sql(sql);
    }

    /** Runs one SQL command on the standby (the new primary, after a promotion) through its socket. */
    String standbySql(String sql) {
        return standby.sql(sql);
    }

    /** Returns how many backends of the old primary wait for a synchronous standby's confirmation now. */
    int waitingOnSyncRep() {
        return Integer.parseInt(primary.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"));
    }

    @Override
    public void close() {
        standby.close();
        primary.close();
    }

    /** One server, run as the {@code postgres} user; its directory in the system temporary directory. */
    static final class Node extends PlacedServer {
        private final Path bin;
        private Node source;

        Node(NetworkPartition net, NetworkPartition.Side side, Path bin, Node source) {
            super(source == null ? "postgres-primary" : "postgres-standby", Path.of(System.getProperty("java.io.tmpdir")),
                    net, side);
            this.bin = bin;
            this.source = source;
        }

        @Override
        protected void initialize() throws IOException {
            UserPrincipalLookupService users = home.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(home, users.lookupPrincipalByName("postgres"));
            if (source != null) {
                // over the link between the sides, from the standby's own side
                runInside(asServerUser(bin.resolve("pg_basebackup").toString(), "-h", source.host(), "-p",
                        String.valueOf(source.port()), "-U", "postgres", "-D", dataDir().toString(), "-X", "stream",
                        "-R", "--no-sync", "-c", "fast"), Duration.ofSeconds(120));
                return;
            }
            run(asServerUser(bin.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", "postgres", "-A",
                    "trust", "-E", "UTF8", "--no-sync"), Duration.ofSeconds(120), false);
            // the partition's addresses: clients and the standby connect from both sides
            Files.writeString(dataDir().resolve("pg_hba.conf"), "host all all 10.231.0.0/16 trust\n"
                    + "host replication all 10.231.0.0/16 trust\n", StandardOpenOption.APPEND);
        }

        @Override
        protected Process launch() {
            return launch(asServerUser(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                    "-p", String.valueOf(port), "-k", home.toString(), "-c", "listen_addresses=" + bindAddress(),
                    "-c", "max_connections=100", "-c", "shared_buffers=32MB", "-c", "cluster_name=" + name(),
                    "-c", "wal_keep_size=64MB", "-c", "fsync=off"), "postgres.log");
        }

        private String name() {
            return "cosid_" + port;
        }

        @Override
        protected boolean ready() {
            List<String> status;
            try {
                status = Files.readAllLines(dataDir().resolve("postmaster.pid"));
            } catch (IOException e) {
                return false;
            }
            if (status.size() < 8 || !List.of("ready", "standby").contains(status.get(7).trim()) || !accepts()) {
                return false;
            }
            return source == null || source.sql("SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
                    + name() + "' AND state = 'streaming'").equals("1");
        }

        void promote() {
            run(asServerUser(bin.resolve("pg_ctl").toString(), "promote", "-w", "-t", "60", "-D",
                    dataDir().toString()), Duration.ofSeconds(90), false);
            source = null;
        }

        /** Runs one SQL command through {@code psql} on the server's socket. */
        String sql(String sql) {
            return run(asServerUser(bin.resolve("psql").toString(), "-h", home.toString(), "-p", String.valueOf(port),
                    "-U", "postgres", "-d", "postgres", "-X", "-Atc", sql), Duration.ofSeconds(30), false).strip();
        }
    }
}
