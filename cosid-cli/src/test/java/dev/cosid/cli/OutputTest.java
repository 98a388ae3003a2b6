package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.time.Clock;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Standard output of real {@code ./cosid} processes: a full disk, a closed pipe, SIGTERM and a run that
 * fails half-way. Whatever happens, the output holds whole ids only; a full disk ends the command with
 * status 1 and one line, a closed pipe ends it quietly with status 141.
 */
class OutputTest {

    private static final Clock CLOCK = Clock.system();

    @TempDir
    Path dir;

    private static List<String> cosid(String... args) {
        return ChildJvm.command(CosIdCommand.class.getName(), args);
    }

    private static void assertFailedWriting(Process process, Path err, String reason) throws Exception {
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the command ends");
        List<String> complaints = Files.readAllLines(err).stream().filter(line -> !line.startsWith("cosid: ")).toList();
        assertEquals(1, process.exitValue(), String.join("\n", complaints));
        assertEquals(1, complaints.size(), "one line: " + complaints);
        assertTrue(complaints.get(0).matches("cosid (generate|decode|schema): cannot write the output: " + reason),
                complaints.get(0));
    }

    /** Every line is a decimal id and the text ends with a line break: nothing was cut off. */
    private static List<Long> wholeIds(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(text.isEmpty() || text.endsWith("\n"), "the last line is whole: ..."
                + text.substring(Math.max(0, text.length() - 40)));
        List<Long> ids = new ArrayList<>();
        for (String line : text.lines().toList()) {
            assertTrue(line.matches("[0-9]{15,19}"), "a whole id: '" + line + "'");
            ids.add(Long.parseLong(line));
        }
        return ids;
    }

    @Test
    void aFullFileSystemEndsGenerateWithStatusOneAndLeavesWholeLines() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        boolean root = new ProcessBuilder("id", "-u").start().inputReader().readLine().equals("0");
        List<String> command = cosid("generate", "--count", "1000000", "--store", "memory:");
        if (root) {
            Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small.toString())
                    .inheritIO().start();
            assertTrue(mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0, "mounted a 64 KB tmpfs");
        } else {
            // without root, a file size limit fails the writes past 64 KB the same way (EFBIG)
            command = List.of("bash", "-c", "ulimit -f 64 && exec \"$@\"", "cosid");
            command = new ArrayList<>(command);
            command.addAll(cosid("generate", "--count", "1000000", "--store", "memory:"));
        }
        try {
            Path out = small.resolve("ids");
            Path err = dir.resolve("err");
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .start();
            assertFailedWriting(process, err, root ? "No space left on device" : "File too large");
            List<Long> ids = wholeIds(out);
            assertTrue(ids.size() > 1_000, "it wrote until the disk was full: " + ids.size());
            assertEquals(ids.size(), new HashSet<>(ids).size());
        } finally {
            if (root) {
                new ProcessBuilder("umount", small.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aDeviceThatIsFullEndsGenerateDecodeAndSchemaWithStatusOne() throws Exception {
        Path full = Path.of("/dev/full");
        for (List<String> args : List.of(List.of("generate", "--count", "3", "--store", "memory:"),
                List.of("decode", "918868837166747648", "918868837166747649"),
                List.of("schema", "--dialect", "postgresql"))) {
            Path err = dir.resolve("err");
            Process process = new ProcessBuilder(cosid(args.toArray(String[]::new))).redirectOutput(full.toFile())
                    .redirectError(err.toFile()).start();
            assertFailedWriting(process, err, "No space left on device");
        }
    }

    /** Like a Unix filter that gets SIGPIPE: status 141 and no complaint, so {@code | head} stays quiet. */
    private static void assertEndedQuietly(Process process, Path err) throws Exception {
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the command ends");
        List<String> complaints = Files.readAllLines(err).stream().filter(line -> !line.startsWith("cosid: ")).toList();
        assertEquals(141, process.exitValue(), String.join("\n", complaints));
        assertEquals(List.of(), complaints);
    }

    @Test
    void aClosedPipeEndsEveryCommandPromptlyAndQuietly() throws Exception {
        Path err = dir.resolve("err");
        long started = CLOCK.monotonicNanos();
        Process generate = new ProcessBuilder(cosid("generate", "--duration", "60s", "--store", "memory:"))
                .redirectError(err.toFile()).start();
        try (BufferedReader reader = generate.inputReader(StandardCharsets.UTF_8)) {
            assertTrue(reader.readLine().matches("[0-9]{15,19}"), "the first id"); // then: | head -1
        }
        assertEndedQuietly(generate, err);
        long seconds = TimeUnit.NANOSECONDS.toSeconds(CLOCK.monotonicNanos() - started);
        assertTrue(seconds < 30, "ended long before its 60 s: " + seconds + " s");

        for (List<String> args : List.of(List.of("decode", "918868837166747648"), List.of("schema", "--dialect", "h2"))) {
            Process process = new ProcessBuilder(cosid(args.toArray(String[]::new))).redirectError(err.toFile()).start();
            process.getInputStream().close(); // the reader is gone before the command writes
            assertEndedQuietly(process, err);
        }
    }

    @Test
    void sigtermLeavesOnlyWholeIdsAndNoneTwice() throws Exception {
        String store = "sqlite:" + dir.resolve("cosid.db");
        Set<Long> all = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            Path out = dir.resolve("ids-" + round);
            Process process = new ProcessBuilder(cosid("generate", "--duration", "60s", "--store", store))
                    .redirectOutput(out.toFile()).redirectError(dir.resolve("err-" + round).toFile()).start();
            // a different moment each round, while ids stream out as fast as they can
            long bytes = 200_000L * (round + 1);
            Await.until(() -> out.toFile().length() > bytes, Duration.ofSeconds(60), "ids on the output");
            process.destroy(); // SIGTERM
            assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the command ends on SIGTERM");
            assertEquals(143, process.exitValue(), Files.readString(dir.resolve("err-" + round)));
            List<Long> ids = wholeIds(out);
            assertTrue(ids.size() > 10_000, ids.size() + " ids");
            for (long id : ids) {
                assertTrue(all.add(id), "id " + id + " printed twice");
            }
        }
    }

    @Test
    void aCountRunThatLosesItsLeaseHalfWayPrintsWhatItIssuedInWholeLinesAndFails() throws Exception {
        String store = "sqlite:" + dir.resolve("cosid.db");
        Path out = dir.resolve("ids");
        Path err = dir.resolve("err");
        Process process = new ProcessBuilder(cosid("generate", "--count", "1000000000", "--store", store, "--bits", "0",
                "--ttl", "2s", "--namespace", "half")).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        Await.until(() -> out.toFile().length() > 100_000, Duration.ofSeconds(60), "ids on the output");
        signal("STOP", process); // paused past its expiry: the slot goes to another holder
        try (LeaseStore other = LeaseStores.open(store)) {
            Await.until(() -> other.acquire("half", 0, Owner.of("other"), new LeaseTerms(60_000, 1_000)).isPresent(),
                    Duration.ofSeconds(30), "the paused holder's lease to expire");
        } finally {
            signal("CONT", process);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the run fails once it finds its lease gone");
        List<String> lines = Files.readAllLines(err);
        assertEquals(1, process.exitValue(), String.join("\n", lines));
        assertTrue(lines.get(lines.size() - 1).startsWith("cosid generate: "), String.join("\n", lines));
        List<Long> ids = wholeIds(out);
        assertTrue(ids.size() > 5_000, ids.size() + " ids");
        assertEquals(ids.size(), new HashSet<>(ids).size());
    }

    private static void signal(String name, Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name);
    }
}
