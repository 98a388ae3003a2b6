package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.FencingToken;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cosid leader} and {@code ./cosid roles} on a lease store ({@code --store}) instead of Kafka: two leaders
 * as processes on one SQLite file and on one real PostgreSQL, the token and roster {@code roles} shows, and the
 * standby taking over with a greater token when the holder is killed (SIGKILL: it cannot resign). Plus the usage
 * errors of the two options, one line and exit 2.
 */
class StoreLeadershipCommandsTest {

    private static final Pattern HOLDING = Pattern.compile("holding role (\\S+) with token (\\d+:\\d+) until");
    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopLeaders() {
        started.forEach(Process::destroyForcibly);
    }

    private Process leader(String store, String role, String member) throws IOException {
        Process process = new ProcessBuilder(ChildJvm.command(CosIdCommand.class.getName(),
                "leader", "--store", store, "--role", role, "--member", member,
                // a lease of 6 s renewed every 2 s: a holder on a loaded machine (load 15 seen) keeps it
                "--lease", "6s", "--renew", "2s", "--stagger", "500ms", "--retry", "200ms"))
                .redirectOutput(dir.resolve(member + ".out").toFile())
                .redirectError(dir.resolve(member + ".err").toFile())
                .start();
        started.add(process);
        return process;
    }

    private String output(String member) {
        try {
            Path out = dir.resolve(member + ".out");
            Path err = dir.resolve(member + ".err");
            return (Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "")
                    + (Files.exists(err) ? Files.readString(err, StandardCharsets.UTF_8) : "");
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static FencingToken holding(String output) {
        Matcher matcher = HOLDING.matcher(output);
        FencingToken last = null;
        while (matcher.find()) {
            last = FencingToken.parse(matcher.group(2));
        }
        return last;
    }

    private static String roleLine(String store, String role) {
        Cli roles = Cli.run("roles", "--store", store, "--lease", "6s", "--renew", "2s", "--stagger", "500ms");
        assertEquals(0, roles.status(), roles.err());
        assertEquals("", roles.err());
        return roles.lines().stream().filter(line -> line.startsWith("role " + role + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + role + ": " + roles.out()));
    }

    /** Two leaders on one store: one holds, roles shows it current; killed, the other takes over with a newer token. */
    private void twoLeadersTakeOverAfterAKill(String store, String role) throws Exception {
        Process first = leader(store, role, "node-1");
        Await.until(() -> output("node-1").contains("renewed role " + role), Duration.ofSeconds(60),
                () -> "node-1 holds and renews: " + output("node-1"));
        leader(store, role, "node-2");
        Await.until(() -> output("node-2").contains("waiting until"), Duration.ofSeconds(60),
                () -> "node-2 waits: " + output("node-2"));
        FencingToken firstToken = holding(output("node-1"));
        String line = roleLine(store, role);
        assertTrue(line.startsWith("role " + role + " holder node-1 token " + firstToken + " (current) deadline "),
                () -> line + "\nnode-1: " + output("node-1"));
        assertTrue(line.endsWith(" roster [node-1 (holder), node-2 (standby, rank 0)]"), line);

        first.destroyForcibly(); // SIGKILL: no resignation, so node-2 waits out the lease
        assertTrue(first.waitFor(30, TimeUnit.SECONDS));
        Await.until(() -> holding(output("node-2")) != null, Duration.ofSeconds(30),
                () -> "node-2 takes over: " + output("node-2"));
        FencingToken secondToken = holding(output("node-2"));
        assertTrue(secondToken.supersedes(firstToken), secondToken + " supersedes " + firstToken);
        Await.until(() -> roleLine(store, role).startsWith("role " + role + " holder node-2 token " + secondToken
                + " (current) "), Duration.ofSeconds(10), () -> "roles shows node-2: " + roleLine(store, role));
    }

    @Test
    void twoLeadersOnOneSqliteFile() throws Exception {
        String store = "sqlite:" + dir.resolve("leaders.db");
        twoLeadersTakeOverAfterAKill(store, "nightly");
    }

    @Test
    void twoLeadersOnOnePostgresServer() throws Exception {
        twoLeadersTakeOverAfterAKill(POSTGRES.server().jdbcUrl(), "billing-" + dir.getFileName().toString()
                .replaceAll("[^A-Za-z0-9]", "").toLowerCase(java.util.Locale.ROOT));
    }

    @Test
    void rolesOnAStoreWithoutRolesSaysSo() {
        String store = "sqlite:" + dir.resolve("empty.db");
        Cli roles = Cli.run("roles", "--store", store);
        assertEquals(0, roles.status(), roles.err());
        assertEquals("no roles in " + store + "\n", roles.out());
    }

    private static void usageError(String expected, String... args) {
        Cli run = Cli.run(args);
        assertEquals(2, run.status(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().startsWith("cosid " + args[0] + ": " + expected), run.err());
        assertEquals("", run.out());
    }

    @Test
    void exactlyOneOfBootstrapAndStoreIsAUsageErrorWithOneLineOtherwise() {
        String both = "give exactly one of --bootstrap HOST:PORT (a Kafka cluster) and --store URL (a lease store)";
        String sqlite = "sqlite:" + dir.resolve("x.db");
        usageError(both, "roles");
        usageError(both, "roles", "--bootstrap", "localhost:9092", "--store", sqlite);
        usageError(both, "leader", "--role", "r", "--member", "m");
        usageError(both, "leader", "--bootstrap", "localhost:9092", "--store", sqlite, "--role", "r", "--member", "m");
        usageError("--timeout cannot be used with --store: it applies to a Kafka cluster (--bootstrap)",
                "roles", "--store", sqlite, "--timeout", "3s");
        usageError("--replication-factor cannot be used with --store", "leader", "--store", sqlite, "--role", "r",
                "--member", "m", "--replication-factor", "3");
        usageError("unknown store URL 'kafka-ish:...'", "roles", "--store", "kafka-ish://h:1");
        assertTrue(Files.notExists(dir.resolve("x.db")), "nothing was created");
    }
}
