package dev.cosid.testkit.servers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server of its own: {@code mariadb-install-db} and {@code mariadbd} as a child process
 * with its own data directory, socket and port; root without a password; database {@code cosid}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (MariaDbServer mariadb = MariaDbServer.started()) {
 *     LeaseStore store = LeaseStores.open(mariadb.jdbcUrl());
 * }
 * }</pre>
 */
public final class MariaDbServer extends ServerProcess {

    private static final List<String> SBIN = List.of("/usr/sbin", "/usr/bin", "/usr/local/bin");

    private final Path mariadbd;
    private final Path installDb;

    private MariaDbServer(Path mariadbd, Path installDb) {
        super("mariadb", Path.of("target", "servers"));
        this.mariadbd = mariadbd;
        this.installDb = installDb;
    }

    /**
     * Initializes and starts a server, or skips the calling test if MariaDB is not installed.
     *
     * @return the running server
     */
    public static MariaDbServer started() {
        Path mariadbd = Servers.binary("mariadbd", "mariadb-server", SBIN);
        Path installDb = Servers.binary("mariadb-install-db", "mariadb-server", SBIN);
        MariaDbServer server = new MariaDbServer(mariadbd, installDb);
        server.firstStart();
        return server;
    }

    /** Returns a JDBC URL of the {@code cosid} database as root. */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/cosid?user=root";
    }

    private List<String> asRoot(List<String> command) {
        List<String> full = new ArrayList<>(command);
        if (runningAsRoot()) {
            full.add("--user=root");
        }
        return full;
    }

    @Override
    protected void initialize() throws IOException {
        Files.writeString(home.resolve("init.sql"), "CREATE DATABASE IF NOT EXISTS cosid;\n");
        Files.createDirectories(tmpDir());
        // a temporary directory of its own: bootstraps side by side in /tmp failed on each other's temporary
        // tables ("Could not remove temporary table '/tmp/#sql-temptable-...'", then "Unknown table")
        run(asRoot(List.of(installDb.toString(), "--no-defaults", "--datadir=" + dataDir(),
                "--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir=" + tmpDir())),
                Duration.ofSeconds(120), false);
    }

    private Path tmpDir() {
        return home.resolve("tmp");
    }

    @Override
    protected Process launch() throws IOException {
        return new ProcessBuilder(asRoot(List.of(mariadbd.toString(), "--no-defaults", "--datadir=" + dataDir(),
                "--port=" + port, "--bind-address=127.0.0.1", "--socket=/tmp/cosid-mariadb-" + port + ".sock",
                "--tmpdir=" + tmpDir(),
                "--pid-file=" + home.resolve("mariadbd.pid"), "--log-error=" + home.resolve("mariadbd.err"),
                "--init-file=" + home.resolve("init.sql"), "--innodb-buffer-pool-size=32M", "--skip-name-resolve",
                "--max-connections=400")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("mariadbd.log").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        return accepts();
    }
}
