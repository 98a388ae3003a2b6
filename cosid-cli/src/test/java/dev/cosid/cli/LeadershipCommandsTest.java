package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.kafka.KafkaBroker;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rough edges of {@code ./cosid leader} and {@code ./cosid roles}, each with its exit status and its
 * one line: an empty cluster, a broker that cannot be reached, the token both print, and the roster after
 * members stopped or were killed. Leaders run as separate processes on a real broker.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LeadershipCommandsTest {

    private static final Clock CLOCK = Clock.system();
    private static final Pattern TOKEN = Pattern.compile("with token (\\d+:\\d+)");
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    @TempDir
    Path dir;

    private static String bootstrap() {
        return BROKER.server().bootstrapServers();
    }

    private static void assertOneLine(String text, String expected) {
        assertEquals(1, text.strip().lines().count(), text);
        assertTrue(text.contains(expected), text);
    }

    @Test
    @Order(1)
    void rolesOnAClusterWithoutRolesSaysSoAndExitsZero() {
        Cli result = Cli.run("roles", "--bootstrap", bootstrap());
        assertEquals(0, result.status(), result.err());
        assertEquals("", result.err());
        assertEquals("no roles in __coordination_state on " + bootstrap() + "\n", result.out());
    }

    private static String closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "localhost:" + socket.getLocalPort(); // nothing listens there once it is closed
        }
    }

    /** Runs a command and checks it failed with exit 1, one line on stderr, within the timeout plus 5 s of slack. */
    private static void failsWithinItsTimeout(long timeoutMillis, String command, String... args) {
        long start = CLOCK.monotonicNanos();
        Cli result = Cli.run(args);
        long tookMillis = (CLOCK.monotonicNanos() - start) / 1_000_000;
        assertEquals(1, result.status(), result.err());
        assertEquals("", result.out());
        assertOneLine(result.err(), "cosid " + command + ": cannot reach the Kafka cluster at " + args[2] + " within "
                + timeoutMillis + " ms: no broker answered");
        // the bound: the timeout, plus slack for the client to start and stop on a loaded machine
        assertTrue(tookMillis < timeoutMillis + 5_000, command + " took " + tookMillis + " ms");
        assertTrue(tookMillis >= timeoutMillis - 100, command + " gave up early: " + tookMillis + " ms");
    }

    @Test
    @Order(2)
    void rolesAndLeaderAgainstAnUnreachableBrokerFailWithinTheirTimeoutWithOneLine() throws IOException {
        String nowhere = closedPort();
        failsWithinItsTimeout(10_000, "roles", "roles", "--bootstrap", nowhere); // the documented default
        failsWithinItsTimeout(1_500, "leader", "leader", "--bootstrap", nowhere, "--timeout", "1500ms",
                "--role", "controller", "--member", "node-1");
    }

    @Test
    @Order(3)
    void aMalformedBootstrapOrRoleIsAUsageErrorWithOneLine() {
        Cli bootstrap = Cli.run("roles", "--bootstrap", "localhost");
        assertEquals(2, bootstrap.status(), bootstrap.err());
        assertOneLine(bootstrap.err(), "cosid roles: --bootstrap 'localhost' is not HOST:PORT[,HOST:PORT...]");
        Cli role = Cli.run("leader", "--bootstrap", bootstrap(), "--role", "", "--member", "m");
        assertEquals(2, role.status(), role.err());
        assertOneLine(role.err(), "cosid leader: role is empty");
        Cli config = Cli.run("leader", "--bootstrap", bootstrap(), "--role", "r", "--member", "m", "--renew", "30s");
        assertEquals(2, config.status(), config.err());
        assertOneLine(config.err(), "the renew interval of 30000 ms is not shorter than the lease duration of 30000 ms");
    }

    private Process leader(String role, String member, String lease, String renew) throws IOException {
        return new ProcessBuilder(ChildJvm.command(CosIdCommand.class.getName(),
                "leader", "--bootstrap", bootstrap(), "--role", role, "--member", member,
                "--lease", lease, "--renew", renew, "--stagger", "1s", "--retry", "200ms"))
                .redirectOutput(dir.resolve(member + ".out").toFile())
                .redirectError(dir.resolve(member + ".err").toFile())
                .start();
    }

    private String output(String member) {
        try {
            Path out = dir.resolve(member + ".out");
            return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private String errors(String member) {
        try {
            Path err = dir.resolve(member + ".err");
            return Files.exists(err) ? "; stderr: " + Files.readString(err, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Set<String> tokens(String text) {
        Set<String> tokens = new TreeSet<>();
        Matcher matcher = TOKEN.matcher(text);
        while (matcher.find()) {
            tokens.add(matcher.group(1));
        }
        return tokens;
    }

    private static String roleLine(Cli roles, String role) {
        return roles.lines().stream().filter(line -> line.startsWith("role " + role + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + role + ": " + roles.out()));
    }

    @Test
    @Order(4)
    void theTokenTheLeaderPrintsIsTheOneRolesShowsAndStoppedMembersLeaveTheRoster() throws Exception {
        Process first = leader("tokens", "node-1", "6s", "1s");
        Process second = null;
        try {
            Await.until(() -> output("node-1").contains("renewed role tokens"), Duration.ofSeconds(60),
                    () -> "a renewal by node-1: " + output("node-1") + errors("node-1"));
            second = leader("tokens", "node-2", "6s", "1s");
            Process standby = second;
            Await.until(() -> output("node-2").contains("waiting until"), Duration.ofSeconds(60), "node-2 waits");

            Cli roles = Cli.run("roles", "--bootstrap", bootstrap());
            assertEquals(0, roles.status(), roles.err());
            String line = roleLine(roles, "tokens");
            assertTrue(line.startsWith("role tokens holder node-1 token ") && line.contains("(current)"), line);
            String shown = line.split(" ")[5];
            Await.until(() -> tokens(output("node-1")).contains(shown), Duration.ofSeconds(10),
                    "node-1 printing the token roles showed, " + shown + ": " + output("node-1"));
            assertTrue(line.endsWith("roster [node-1 (holder), node-2 (standby, rank 0)]"), line);
            String holding = output("node-1").lines().filter(l -> l.contains("holding role tokens")).findFirst()
                    .orElseThrow();
            assertTrue(holding.contains("(epoch minted as ") && holding.contains("transaction protocol v2 moves the "
                    + "token on with every commit"), "under version 2 the holding line explains the moving token: "
                    + holding);

            first.destroy(); // SIGTERM: node-1 resigns and leaves; node-2 takes over at once
            assertTrue(first.waitFor(30, TimeUnit.SECONDS));
            assertTrue(output("node-1").contains("resigned role tokens"), output("node-1"));
            assertTrue(output("node-1").contains("left role tokens: registration of node-1 removed"), output("node-1"));
            Await.until(() -> output("node-2").contains("holding role tokens"), Duration.ofSeconds(30),
                    "node-2 taking over");
            standby.destroy();
            assertTrue(standby.waitFor(30, TimeUnit.SECONDS));
            assertTrue(output("node-2").contains("left role tokens: registration of node-2 removed"), output("node-2"));

            Cli after = Cli.run("roles", "--bootstrap", bootstrap());
            assertEquals(0, after.status(), after.err());
            assertEquals("role tokens holder - token - (no lease) deadline - roster []", roleLine(after, "tokens"),
                    "both members stopped: no holder and nobody in the roster");
        } finally {
            first.destroyForcibly();
            if (second != null) {
                second.destroyForcibly();
            }
        }
    }

    @Test
    @Order(5)
    void aKilledMemberStaysInTheRosterButIsMarkedStaleOnceItsRenewalIsOverdue() throws Exception {
        Process holder = leader("stale", "node-3", "3s", "1s");
        try {
            Await.until(() -> output("node-3").contains("renewed role stale"), Duration.ofSeconds(60),
                    () -> "a renewal by node-3: " + output("node-3") + errors("node-3"));
            Cli live = Cli.run("roles", "--bootstrap", bootstrap(), "--lease", "3s", "--renew", "1s", "--stagger", "1s");
            assertEquals(0, live.status(), live.err());
            assertTrue(roleLine(live, "stale").endsWith("roster [node-3 (holder)]"), "a renewing holder is live: "
                    + roleLine(live, "stale"));

            holder.destroyForcibly(); // SIGKILL: no chance to leave the roster
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
            // stale once the lease (3 s) has expired and a renew interval (1 s) has passed since
            Await.until(() -> roleLine(Cli.run("roles", "--bootstrap", bootstrap(), "--lease", "3s", "--renew", "1s",
                    "--stagger", "1s"), "stale").contains("(holder, stale: not renewed since its lease expired at "),
                    Duration.ofSeconds(30), "node-3 marked stale");
            Cli dead = Cli.run("roles", "--bootstrap", bootstrap(), "--lease", "3s", "--renew", "1s", "--stagger", "1s");
            assertEquals(0, dead.status(), dead.err());
            assertEquals("", dead.err());
            List<String> lines = dead.lines();
            assertFalse(lines.isEmpty());
            assertTrue(roleLine(dead, "stale").matches("role stale holder node-3 token \\d+:\\d+ \\(current\\) deadline "
                    + "\\S+ roster \\[node-3 \\(holder, stale: not renewed since its lease expired at \\S+\\)\\]"),
                    roleLine(dead, "stale"));
        } finally {
            holder.destroyForcibly();
        }
    }
}
