package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.ChildJvm;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded SQLite file deleted, truncated or overwritten while a generator runs, with real
 * processes: the running one stops issuing at its next renewal and exits with status 1, a second one is
 * refused instead of starting a new database at floor 0 on the same slot, and no id repeats across all
 * their output. The running one is held (SIGSTOP) while the data vanishes and the second one tries, so
 * it cannot notice the loss and exit first, however busy the machine is.
 */
class VanishedStoreProcessTest {

    private static final Clock CLOCK = Clock.system();

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopProcesses() {
        started.forEach(Process::destroyForcibly);
    }

    /** Sends a signal to a process this test started (SIGSTOP holds it, with its lock, until SIGCONT). */
    private static void signal(Process process, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, kill.exitValue(), "kill -" + name);
    }

    private Path db() {
        return dir.resolve("cosid.db");
    }

    private Process cosid(String name, String... args) throws IOException {
        List<String> command = ChildJvm.command(CosIdCommand.class.getName(), args);
        Process process = new ProcessBuilder(command)
                .redirectOutput(dir.resolve(name + ".out").toFile())
                .redirectError(dir.resolve(name + ".err").toFile())
                .start();
        started.add(process);
        return process;
    }

    private Process runningGenerator() throws IOException {
        Process first = cosid("first", "generate", "--duration", "60s", "--ttl", "3s", "--rate", "20000",
                "--store", "sqlite:" + db());
        awaitOutput("first", 2_000, first);
        return first;
    }

    private String err(String name) throws IOException {
        return Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
    }

    private List<Long> ids(String name) throws IOException {
        List<Long> ids = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve(name + ".out"))) {
            if (!line.isEmpty()) {
                ids.add(Long.parseLong(line));
            }
        }
        return ids;
    }

    private void awaitOutput(String name, long lines, Process process) throws IOException {
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(60);
        Path out = dir.resolve(name + ".out");
        while (!Files.exists(out) || Files.size(out) < lines * 19) {
            assertTrue(process.isAlive(), name + " died: " + err(name));
            assertTrue(CLOCK.monotonicNanos() < deadline, name + " printed no ids within 60 s: " + err(name));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private void awaitErr(String name, String text) throws IOException {
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(30);
        while (!err(name).contains(text)) {
            assertTrue(CLOCK.monotonicNanos() < deadline, name + " never said '" + text + "': " + err(name));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * A second generator on the path is refused with one line and creates nothing. (What it found can
     * differ from what was done when the first one's connection was open at that moment: SQLite may write
     * some pages back into a truncated file.)
     */
    private void secondIsRefused(String what) throws Exception {
        Process second = cosid("second", "generate", "--count", "1000", "--store", "sqlite:" + db());
        assertTrue(second.waitFor(60, TimeUnit.SECONDS), "the second generator did not stop");
        String err = err("second");
        assertEquals(1, second.exitValue(), err);
        assertEquals(1, err.lines().count(), "one line: " + err);
        assertTrue(err.startsWith("cosid generate: sqlite:" + db() + " "), err);
        assertTrue(err.contains(" while another process uses it (it holds " + db() + ".lock)"), err);
        assertTrue(err.contains(what) || !what.equals("was deleted"), err);
        assertEquals(List.of(), ids("second"), "the refused generator printed no id");
    }

    /** The running generator stops issuing for good, says why in a few lines, and prints no id after that. */
    private void firstFailsClosed(Process first, String why) throws Exception {
        awaitErr("first", "stopped for good: ");
        assertTrue(err("first").contains(why) || err("first").contains("the CosId data in sqlite:" + db()
                + " is gone while in use"), err("first"));
        int issued = ids("first").size();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
        assertEquals(issued, ids("first").size(), "no id after the runtime stopped");
        assertFalse(err("first").contains("\tat "), "no stack trace: " + err("first"));
        assertTrue(err("first").lines().count() < 20, "a few lines, not hundreds: " + err("first"));
        assertTrue(first.waitFor(30, TimeUnit.SECONDS), "the first generator ends by itself");
        assertEquals(1, first.exitValue(), "a runtime stopped for good is a failure: " + err("first"));
    }

    /** Once nobody uses the path, a new generator starts a new database, and no id repeats. */
    private void afterwardsANewDatabaseRepeatsNothing() throws Exception {
        Process third = cosid("third", "generate", "--count", "20000", "--store", "sqlite:" + db());
        assertTrue(third.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, third.exitValue(), err("third"));
        Set<Long> all = new HashSet<>();
        for (String name : List.of("first", "second", "third")) {
            for (long id : ids(name)) {
                assertTrue(all.add(id), "id " + id + " of " + name + " repeats");
            }
        }
        assertEquals(20_000, ids("third").size());
    }

    @Test
    void aDeletedDatabaseStopsTheRunningGeneratorAndRefusesASecondOne() throws Exception {
        Process first = runningGenerator();
        signal(first, "STOP");
        Files.delete(db());
        secondIsRefused("was deleted");
        signal(first, "CONT");
        assertFalse(Files.exists(db()), "nothing recreated the database");
        firstFailsClosed(first, "sqlite:" + db() + " was deleted while in use");
        afterwardsANewDatabaseRepeatsNothing();
    }

    @Test
    void aTruncatedDatabaseStopsTheRunningGeneratorAndRefusesASecondOne() throws Exception {
        Process first = runningGenerator();
        signal(first, "STOP");
        try (RandomAccessFile file = new RandomAccessFile(db().toFile(), "rw")) {
            file.setLength(0);
        }
        secondIsRefused("was truncated to nothing");
        signal(first, "CONT");
        firstFailsClosed(first, "was truncated to nothing while in use");
        afterwardsANewDatabaseRepeatsNothing();
    }

    @Test
    void aDatabaseOverwrittenWithGarbageStopsTheRunningGeneratorInAFewLines() throws Exception {
        Process first = runningGenerator();
        signal(first, "STOP");
        byte[] garbage = new byte[64 * 1024];
        new Random(13).nextBytes(garbage);
        Files.write(db(), garbage);
        secondIsRefused("was overwritten with something that is not a SQLite database");
        signal(first, "CONT");
        firstFailsClosed(first, "is gone while in use");
    }
}
