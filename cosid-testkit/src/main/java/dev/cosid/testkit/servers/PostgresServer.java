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

    private PostgresServer(Path bin) {
        super("postgres", runningAsRoot() ? Path.of(System.getProperty("java.io.tmpdir")) : Path.of("target", "servers"));
        this.bin = bin;
    }

    /**
     * Initializes and starts a server, or skips the calling test if PostgreSQL is not installed.
     *
     * @return the running server
     */
    public static PostgresServer started() {
        Path initdb = Servers.binary("initdb", "postgresql", Servers.postgresBinDirs());
        Path bin = initdb.getParent();
        PostgresServer server = new PostgresServer(bin);
        server.firstStart();
        return server;
    }

    /** Returns a JDBC URL of the {@code postgres} database as the {@code postgres} user. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    private List<String> asServerUser(String... command) {
        List<String> full = new ArrayList<>();
        if (runningAsRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
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
        run(asServerUser(bin.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-sync"), Duration.ofSeconds(120), false);
    }

    @Override
    protected Process launch() throws IOException {
        return new ProcessBuilder(asServerUser(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                "-p", String.valueOf(port), "-k", home.toString(), "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=300", "-c", "shared_buffers=32MB"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("postgres.log").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        List<String> status = postmasterPid();
        return status.size() >= 8 && status.get(7).trim().equals("ready") && accepts();
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
