package dev.cosid.testkit.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of its own: {@code initdb} and {@code postgres} as a child process, run as the
 * unprivileged {@code postgres} user when the build runs as root (its directory then lives in the
 * system temporary directory, which that user can reach).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (PostgresServer postgres = PostgresServer.started()) {
 *     LeaseStore store = LeaseStores.open(postgres.jdbcUrl());
 * }
 * }</pre>
 */
public final class PostgresServer extends ServerProcess {

    private final Path bin;
    /** The server this one streams from as a standby ({@code pg_basebackup}, then recovery), or null for a primary. */
    private PostgresServer source;

    private PostgresServer(Path bin, PostgresServer source) {
        super(source == null ? "postgres" : "postgres-standby",
                runningAsRoot() ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of("target", "servers"));
        this.bin = bin;
        this.source = source;
    }

    /**
     * Returns the directory of the newest installed PostgreSQL's programs ({@code initdb}, {@code postgres},
     * {@code pg_ctl}, ...), or skips the calling test if PostgreSQL is not installed.
     *
     * @return the bin directory
     */
    public static Path bin() {
        return Servers.binary("initdb", "postgresql", Servers.postgresBinDirs()).getParent();
    }

    /**
     * Initializes and starts a server, or skips the calling test if PostgreSQL is not installed.
     *
     * @return the running server
     */
    public static PostgresServer started() {
        PostgresServer server = new PostgresServer(bin(), null);
        server.firstStart();
        return server;
    }

    /**
     * Copies a running server with {@code pg_basebackup} and starts the copy as its hot standby, streaming
     * its WAL; waits until the source reports the stream.
     *
     * @param source the primary
     * @return the running standby
     */
    public static PostgresServer standbyOf(PostgresServer source) {
        PostgresServer standby = new PostgresServer(source.bin, source);
        try {
            standby.firstStart();
        } catch (RuntimeException e) {
            standby.close();
            throw e;
        }
        return standby;
    }

    /** Returns the server this one streams from, or null for a primary. */
    PostgresServer source() {
        return source;
    }

    /**
     * Makes this stopped server a fresh standby of another: deletes its data, copies the other's and starts.
     *
     * @param primary the running server to follow
     */
    synchronized void rebuildAsStandbyOf(PostgresServer primary) {
        stop();
        this.source = primary;
        deleteData();
        firstStart();
    }

    /** Promotes this standby with {@code pg_ctl promote} and waits until it accepts writes. */
    public synchronized void promote() {
        if (source == null) {
            throw new IllegalStateException(this + " is no standby");
        }
        run(asServerUser(bin.resolve("pg_ctl").toString(), "promote", "-w", "-t", "60", "-D", dataDir().toString()),
                Duration.ofSeconds(90), false);
        source = null;
    }

    /**
     * Runs one SQL command through {@code psql} on the server's socket.
     *
     * @param sql the command
     * @return its unaligned, tuples-only output
     */
    public String sql(String sql) {
        return run(asServerUser(bin.resolve("psql").toString(), "-h", home.toString(), "-p", String.valueOf(port),
                "-U", "postgres", "-d", "postgres", "-X", "-Atc", sql), Duration.ofSeconds(30), false).strip();
    }

    /** Returns a JDBC URL of the {@code postgres} database as the {@code postgres} user. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /**
     * Returns a command that runs as the {@code postgres} user when the tests run as root (PostgreSQL refuses to
     * run as root), in the root directory, which that user can always enter; else the command as given.
     *
     * @param command the program and its arguments
     * @return the command to start
     */
    public static List<String> asServerUser(String... command) {
        List<String> full = new ArrayList<>();
        if (runningAsRoot()) {
            // setpriv execs the command as the user, so the server is the test's own child; runuser stays as its
            // parent and, on a busy machine, left a postmaster that had shut down unreaped for the whole 30 s
            // shutdown wait (the suite's slowest PostgreSQL restarts)
            full.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--reset-env"));
            // the command starts in the test's working directory, which may be a clone in a directory the postgres
            // user cannot enter (mktemp -d, a home of mode 0700); a standby then never got ready. env execs too.
            full.addAll(List.of("env", "--chdir=/"));
        }
        full.addAll(List.of(command));
        return full;
    }

    @Override
    protected void initialize() throws IOException {
        if (runningAsRoot()) {
            UserPrincipalLookupService users = home.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(home, users.lookupPrincipalByName("postgres"));
        }
        if (source != null) {
            // -R writes standby.signal and the connection to the source; the WAL streams while the copy is taken
            run(asServerUser(bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p",
                    String.valueOf(source.port), "-U", "postgres", "-D", dataDir().toString(), "-X", "stream", "-R",
                    "--no-sync", "-c", "fast"), Duration.ofSeconds(120), false);
            return;
        }
        run(asServerUser(bin.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-sync"), Duration.ofSeconds(120), false);
    }

    @Override
    protected Process launch() throws IOException {
        // no fsync: a killed server keeps what the kernel holds, and a loaded machine answers sooner (a commit
        // waiting for a synchronous standby's flush took over 250 ms, the shortest call bound, on a busy machine)
        return new ProcessBuilder(asServerUser(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                "-p", String.valueOf(port), "-k", home.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=300", "-c", "shared_buffers=32MB", "-c", "cluster_name=" + name(),
                "-c", "wal_keep_size=64MB", "-c", "fsync=off"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("postgres.log").toFile()))
                .start();
    }

    /** The name a standby streams under ({@code application_name}, from {@code cluster_name}). */
    String name() {
        return "cosid_" + port;
    }

    @Override
    protected boolean ready() {
        List<String> status = postmasterPid();
        if (source == null) {
            return status.size() >= 8 && status.get(7).trim().equals("ready") && accepts();
        }
        // a hot standby reports "ready" (or "standby" in some versions); it is ready once its source sees it streaming
        return status.size() >= 8 && List.of("ready", "standby").contains(status.get(7).trim()) && accepts()
                && source.sql("SELECT count(*) FROM pg_stat_replication WHERE application_name = '" + name()
                        + "' AND state = 'streaming'").equals("1");
    }

    private List<String> postmasterPid() {
        try {
            return Files.readAllLines(dataDir().resolve("postmaster.pid"));
        } catch (IOException e) {
            return List.of();
        }
    }

    @Override
    protected List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        List<String> status = postmasterPid();
        if (!status.isEmpty()) {
            long postmaster = Long.parseLong(status.get(0).trim());
            pids.add(postmaster);
            ProcessHandle.of(postmaster).map(ProcessHandle::descendants).orElse(Stream.empty())
                    .forEach(child -> pids.add(child.pid()));
        }
        if (process != null && !pids.contains(process.pid())) {
            pids.add(process.pid());
        }
        return pids;
    }

    /** Fast shutdown: SIGINT to the postmaster. */
    @Override
    protected void requestShutdown() {
        List<Long> pids = pids();
        if (!pids.isEmpty()) {
            signal("INT", pids.subList(0, 1));
        }
    }
}
