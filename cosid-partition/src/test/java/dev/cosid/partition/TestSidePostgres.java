package dev.cosid.partition;

import static dev.cosid.testkit.servers.PostgresServer.asServerUser;

import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL server in the test's own namespace, listening on loopback and on the test's end of each side's
 * control link of a {@link NetworkPartition}: the processes of both sides reach it ({@link #url(NetworkPartition.Side)})
 * whether the sides are cut or not, so a cut separates only what runs inside the sides. Run as the
 * {@code postgres} user, its directory in the system temporary directory; closing it kills it at once.
 */
final class TestSidePostgres extends ServerProcess {

    private final Path bin;
    private final String listen;

    private TestSidePostgres(NetworkPartition net) {
        super("postgres-test-side", Path.of(System.getProperty("java.io.tmpdir")));
        this.bin = PostgresServer.bin();
        this.listen = String.join(",", "127.0.0.1", testEnd(net.a()), testEnd(net.b()));
    }

    /** Initializes and starts the server, or skips the calling test when PostgreSQL is missing. */
    static TestSidePostgres started(NetworkPartition net) {
        TestSidePostgres server = new TestSidePostgres(net);
        try {
            server.firstStart();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Returns the address of the test's end of a side's control link: each control link is a /30 whose test end
     * lies one below the side's control address ({@code .5}/{@code .6}, {@code .9}/{@code .10}).
     */
    private static String testEnd(NetworkPartition.Side side) {
        String control = side.controlAddress();
        int dot = control.lastIndexOf('.');
        return control.substring(0, dot + 1) + (Integer.parseInt(control.substring(dot + 1)) - 1);
    }

    /** Returns the JDBC URL as the processes inside the side reach the server. */
    String url(NetworkPartition.Side side) {
        return "jdbc:postgresql://" + testEnd(side) + ":" + port + "/postgres?user=postgres";
    }

    /** Runs one SQL command through {@code psql} on the server's socket. */
    String sql(String sql) {
        return run(asServerUser(bin.resolve("psql").toString(), "-h", home.toString(), "-p", String.valueOf(port),
                "-U", "postgres", "-d", "postgres", "-X", "-Atc", sql), Duration.ofSeconds(30), false).strip();
    }

    @Override
    protected void initialize() throws IOException {
        UserPrincipalLookupService users = home.getFileSystem().getUserPrincipalLookupService();
        Files.setOwner(home, users.lookupPrincipalByName("postgres"));
        run(asServerUser(bin.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", "postgres", "-A",
                "trust", "-E", "UTF8", "--no-sync"), Duration.ofSeconds(120), false);
        // the partition's addresses: the workers connect from both sides over their control links
        Files.writeString(dataDir().resolve("pg_hba.conf"), "host all all 10.231.0.0/16 trust\n",
                StandardOpenOption.APPEND);
    }

    @Override
    protected Process launch() throws IOException {
        return new ProcessBuilder(asServerUser(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                "-p", String.valueOf(port), "-k", home.toString(), "-c", "listen_addresses=" + listen,
                "-c", "max_connections=100", "-c", "shared_buffers=32MB", "-c", "fsync=off"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(home.resolve("postgres.log").toFile()))
                .start();
    }

    @Override
    protected boolean ready() {
        try {
            List<String> status = Files.readAllLines(dataDir().resolve("postmaster.pid"));
            return status.size() >= 8 && status.get(7).trim().equals("ready") && accepts();
        } catch (IOException e) {
            return false;
        }
    }

    /** Kills the server at once and deletes its directory. */
    @Override
    public synchronized void close() {
        kill();
        super.close();
    }
}
