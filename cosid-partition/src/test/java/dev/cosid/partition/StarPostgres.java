package dev.cosid.partition;

import static dev.cosid.testkit.servers.PostgresServer.asServerUser;

import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.testkit.servers.StarNetwork;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL server on a host of a {@link StarNetwork}: the processes on the other hosts reach it on the star
 * ({@link #url()}), the test on the host's control address ({@link #controlUrl()}), which no cut touches. Run as
 * the {@code postgres} user, its directory in the system temporary directory; the star kills it when it closes.
 */
final class StarPostgres extends ServerProcess {

    private final StarNetwork net;
    private final StarNetwork.Host host;
    private final Path bin;

    private StarPostgres(StarNetwork net, StarNetwork.Host host) {
        super("postgres-" + host.name(), Path.of(System.getProperty("java.io.tmpdir")), host);
        this.net = net;
        this.host = host;
        this.bin = PostgresServer.bin();
    }

    /** Initializes and starts the server on the host, or skips the calling test when PostgreSQL is missing. */
    static StarPostgres started(StarNetwork net, StarNetwork.Host host) {
        StarPostgres server = new StarPostgres(net, host);
        try {
            server.firstStart();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** The JDBC URL as processes on the star reach the server. */
    String url() {
        return "jdbc:postgresql://" + host() + ":" + port + "/postgres?user=postgres";
    }

    /** The JDBC URL the test reaches the server on, cut or not. */
    String controlUrl() {
        return "jdbc:postgresql://" + controlHost() + ":" + port + "/postgres?user=postgres";
    }

    @Override
    protected void initialize() throws IOException {
        UserPrincipalLookupService users = home.getFileSystem().getUserPrincipalLookupService();
        Files.setOwner(home, users.lookupPrincipalByName("postgres"));
        run(asServerUser(bin.resolve("initdb").toString(), "-D", dataDir().toString(), "-U", "postgres", "-A",
                "trust", "-E", "UTF8", "--no-sync"), Duration.ofSeconds(120), false);
        // the star's and the control links' addresses
        Files.writeString(dataDir().resolve("pg_hba.conf"), "host all all 10.231.0.0/16 trust\n",
                StandardOpenOption.APPEND);
    }

    @Override
    protected Process launch() {
        return net.start(host, asServerUser(bin.resolve("postgres").toString(), "-D", dataDir().toString(),
                "-p", String.valueOf(port), "-k", home.toString(), "-c", "listen_addresses=" + bindAddress(),
                "-c", "max_connections=200", "-c", "shared_buffers=32MB", "-c", "fsync=off"),
                home.resolve("postgres.log"));
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

    /** Kills the server at once (the star would anyway) and deletes its directory. */
    @Override
    public synchronized void close() {
        kill();
        super.close();
    }
}
