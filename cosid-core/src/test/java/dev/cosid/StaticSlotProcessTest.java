package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Static slots across real process deaths: SIGKILL mid-issue, a clock set back, an unreadable file. */
class StaticSlotProcessTest {

    private static final dev.cosid.time.Clock CLOCK = dev.cosid.time.Clock.system();

    @TempDir
    Path dir;

    private static List<String> java(String... args) {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // root reads any file; drop the capabilities that let it, so permissions apply as to a service user
            command.addAll(List.of("setpriv", "--bounding-set=-dac_override,-dac_read_search"));
        }
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StaticSlotWorker.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    private Process worker(String mode, Path state, long offsetMillis, Path out) throws IOException {
        return new ProcessBuilder(java(mode, state.toString(), "4", "1000", Long.toString(offsetMillis), out.toString()))
                .redirectError(dir.resolve(out.getFileName() + ".err").toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static long[] ids(Path out) throws IOException {
        List<String> lines = Files.readAllLines(out);
        // the last line may be cut off by the kill
        return lines.stream().filter(line -> !line.isEmpty()).limit(Math.max(0, lines.size() - 1))
                .mapToLong(Long::parseLong).toArray();
    }

    private static void awaitLines(Path out, int lines, Process process) throws IOException {
        long deadline = CLOCK.monotonicNanos() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(out) || Files.size(out) < lines * 19L) {
            assertTrue(process.isAlive(), "the worker died");
            assertTrue(CLOCK.monotonicNanos() < deadline, "the worker wrote no ids within 60 s");
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Test
    void aKilledWorkerRestartedWithItsClockSetBackNeverRepeatsAnId() throws Exception {
        Path state = dir.resolve("state");
        Path first = dir.resolve("first.ids");
        Process before = worker("run", state, 0, first);
        awaitLines(first, 20_000, before);
        before.destroyForcibly(); // SIGKILL, in the middle of issuing
        assertTrue(before.waitFor(10, TimeUnit.SECONDS));
        long[] issuedBefore = ids(first);

        Path second = dir.resolve("second.ids");
        Process after = worker("run", state, -3_000, second); // the clock is set back by 3 x ahead
        awaitLines(second, 1_000, after);
        after.destroyForcibly();
        assertTrue(after.waitFor(10, TimeUnit.SECONDS));
        long[] issuedAfter = ids(second);

        Set<Long> all = new HashSet<>();
        long lastBefore = 0;
        for (long id : issuedBefore) {
            assertTrue(all.add(id));
            lastBefore = Math.max(lastBefore, id);
        }
        for (long id : issuedAfter) {
            assertTrue(all.add(id), "id " + id + " was issued again after the restart");
        }
        assertTrue(issuedAfter[0] > lastBefore, "the first new id lies past the last one before the kill");
        assertTrue(IdLayout.MILLISECOND.parse(issuedAfter[0]).timestampMillis()
                > IdLayout.MILLISECOND.parse(lastBefore).timestampMillis());
        assertEquals(4, IdLayout.MILLISECOND.parse(issuedAfter[0]).slot());
    }

    @Test
    void anUnreadableStateFileStopsTheStartAndStaysAsItWas() throws Exception {
        Path state = dir.resolve("locked");
        StateFile.write(state, new StateFile.State("worker", 4, 1_800_000_000_000L));
        byte[] content = Files.readAllBytes(state);
        Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("---------"));
        try {
            Process check = worker("check", state, 0, dir.resolve("none"));
            assertTrue(check.waitFor(60, TimeUnit.SECONDS));
            String err = Files.readString(dir.resolve("none.err"), StandardCharsets.UTF_8);
            assertEquals(3, check.exitValue(), err);
            assertTrue(err.contains("cannot read the state file " + state + ": permission denied"), err);
        } finally {
            Files.setPosixFilePermissions(state, PosixFilePermissions.fromString("rw-------"));
        }
        assertArrayEquals(content, Files.readAllBytes(state));
        assertEquals(Duration.ZERO, Duration.ZERO);
    }

    @Test
    void aSecondProcessOnTheSameStateFileIsRefusedNamingTheFirstAndNoIdRepeats() throws Exception {
        Path state = dir.resolve("shared");
        Path first = dir.resolve("first.ids");
        Process running = worker("run", state, 0, first);
        awaitLines(first, 5_000, running);

        Path second = dir.resolve("second.ids");
        Process refused = worker("run", state, 0, second);
        assertTrue(refused.waitFor(60, TimeUnit.SECONDS), "the second process did not stop");
        String err = Files.readString(dir.resolve("second.ids.err"), StandardCharsets.UTF_8);
        assertEquals(3, refused.exitValue(), err);
        assertEquals(1, err.strip().lines().count(), "one line: " + err);
        assertTrue(err.startsWith("the state file " + state + " is in use by another process (pid " + running.pid()
                + ", owner "), err);
        assertTrue(!Files.exists(second) || Files.size(second) == 0, "the refused process issued nothing");
        assertTrue(running.isAlive(), "the first process keeps running");

        running.destroyForcibly();
        assertTrue(running.waitFor(10, TimeUnit.SECONDS));
        long[] issuedFirst = ids(first);
        Path third = dir.resolve("third.ids");
        Process next = worker("run", state, 0, third); // the lock died with its process
        awaitLines(third, 1_000, next);
        next.destroyForcibly();
        assertTrue(next.waitFor(10, TimeUnit.SECONDS));
        Set<Long> all = new HashSet<>();
        for (long id : issuedFirst) {
            assertTrue(all.add(id));
        }
        for (long id : ids(third)) {
            assertTrue(all.add(id), "id " + id + " repeats");
        }
    }
}
