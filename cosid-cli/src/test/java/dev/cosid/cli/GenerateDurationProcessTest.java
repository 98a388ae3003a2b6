package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate --duration} with a store that stops answering: a Redis server the test started, frozen with
 * SIGSTOP mid-run, and, as a real process, a store that never answers. The run keeps trying, ends within
 * two seconds of its duration, and says in one line how many ids it issued and how long the store was
 * unreachable.
 */
class GenerateDurationProcessTest {

    private static final Clock CLOCK = Clock.system();
    private static final Pattern SUMMARY = Pattern.compile(
            "cosid: issued (\\d+) ids in [0-9.]+ s; the store was unreachable for ([0-9.]+) s");

    @RegisterExtension
    static final ServerExtension<RedisServer> REDIS = new ServerExtension<>(RedisServer::started);

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    private Process cosid(String... args) throws IOException {
        List<String> command = ChildJvm.command(CosIdCommand.class.getName(), args);
        Process process = new ProcessBuilder(command).redirectOutput(dir.resolve("run.out").toFile())
                .redirectError(dir.resolve("run.err").toFile()).start();
        started.add(process);
        return process;
    }

    private String err() throws IOException {
        return Files.readString(dir.resolve("run.err"), StandardCharsets.UTF_8);
    }

    private List<Long> ids() throws IOException {
        List<Long> ids = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("run.out"))) {
            if (!line.isEmpty()) {
                ids.add(Long.parseLong(line));
            }
        }
        return ids;
    }

    /**
     * In this JVM, where nothing ends the run from outside: the bounds of the store calls alone (a sixth of the
     * 3 s ttl), the skipped release and the quiet retries let it end on time.
     */
    @Test
    void aRunWhoseStoreFreezesKeepsTryingEndsOnTimeAndSaysForHowLongItWasUnreachable() throws Exception {
        // load the store's classes first: on a busy machine that alone can take longer than the run
        dev.cosid.lease.LeaseStores.open(REDIS.server().url()).close();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream errBytes = new java.io.ByteArrayOutputStream();
        int[] status = {-1};
        Thread run = new Thread(() -> status[0] = CosIdCommand.run(new String[] {"generate", "--duration", "6s",
                "--ttl", "3s", "--tolerance", "500ms", "--rate", "2000", "--store", REDIS.server().url()},
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(errBytes, true, StandardCharsets.UTF_8)), "generate");
        run.start();
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(60);
        while (out.size() == 0) {
            assertTrue(run.isAlive(), "the run ended: " + errBytes.toString(StandardCharsets.UTF_8));
            assertTrue(CLOCK.monotonicNanos() < deadline, "no id within 60 s");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        // the first id comes after the run began counting its duration: it ends at most 6 + 2 s after this
        long firstId = CLOCK.monotonicNanos();
        REDIS.server().pause();
        try {
            run.join(TimeUnit.SECONDS.toMillis(30));
        } finally {
            REDIS.server().resume();
        }
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(CLOCK.monotonicNanos() - firstId);
        String err = errBytes.toString(StandardCharsets.UTF_8);
        assertTrue(!run.isAlive() && tookMillis <= 8_000, "the 6 s run ended " + tookMillis + " ms after its first "
                + "id: " + err);
        assertEquals(0, status[0], err);
        Matcher summary = SUMMARY.matcher(err);
        assertTrue(summary.find(), err);
        List<Long> ids = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            ids.add(Long.parseLong(line));
        }
        assertEquals(ids.size(), Long.parseLong(summary.group(1)), "the line counts the ids printed: " + err);
        assertTrue(Double.parseDouble(summary.group(2)) > 0 && err.contains(", until the end"),
                "frozen until the end: " + err);
        assertEquals(ids.size(), new HashSet<>(ids).size(), "no id twice");
        assertTrue(err.lines().count() <= 5, "a few lines, not one per retry: " + err);
    }

    /**
     * An id that waits inside the generator (here the cold-start guard's ttl + tolerance, 6.5 s, past the 3 s
     * duration) must not hold the run past its end: before, the generator waited its own bound (7.5 s) and the
     * process was ended by its deadline at 4.5 s mid-close, leaving a store call that was in flight to the server
     * (on PostgreSQL, a commit waiting for a cut-off synchronous standby waits until cancelled).
     */
    @Test
    void anIdWaitingInsideTheGeneratorPastTheDurationEndsTheRunWithAnOrderlyClose() throws Exception {
        Process run = cosid("generate", "--duration", "3s", "--ttl", "6s", "--tolerance", "500ms",
                "--cold-start-guard", "--store", "sqlite:" + dir.resolve("leases.db"));
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "the run did not end: " + err());
        String err = err();
        assertEquals(0, run.exitValue(), err);
        assertTrue(!err.contains("in time to close"), "closed by itself, not ended by its deadline: " + err);
        assertEquals(List.of(), ids(), "the guard's wait outlasts the run: " + err);
    }

    @Test
    void aStoreThatNeverAnswersIsTriedUntilTheEndAndTheRunFailsSayingSo() throws Exception {
        int closed = ServerProcess.freePort();
        long start = CLOCK.monotonicNanos();
        Process run = cosid("generate", "--duration", "3s", "--ttl", "3s", "--store", "redis://127.0.0.1:" + closed);
        assertTrue(run.waitFor(30, TimeUnit.SECONDS), "the run did not end: " + err());
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(CLOCK.monotonicNanos() - start);
        String err = err();
        assertEquals(1, run.exitValue(), "no id at all is a failure: " + err);
        assertTrue(tookMillis >= 3_000, "it gave up after " + tookMillis + " ms, before the end: " + err);
        Matcher summary = Pattern.compile("cosid: issued 0 ids in ([0-9.]+) s; the store was unreachable for "
                + "([0-9.]+) s, until the end").matcher(err);
        assertTrue(summary.find(), err);
        // the run's own reading from the start of its duration: within two seconds past it
        assertTrue(Double.parseDouble(summary.group(1)) <= 5.0, "the 3 s run ended late: " + err);
        assertTrue(Double.parseDouble(summary.group(2)) >= 3.0, "unreachable for the whole run: " + err);
        assertTrue(err.lines().count() <= 3, "a line when it starts waiting, one at the end: " + err);
        assertEquals(List.of(), ids());
    }
}
