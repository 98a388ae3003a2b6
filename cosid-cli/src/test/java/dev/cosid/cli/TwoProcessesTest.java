package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real JVMs generating at the same time on one SQLite file. The second starts only once the first
 * holds its slot, and the first is stopped only after the second finished, so the two runs overlap
 * whatever the machine's load.
 */
class TwoProcessesTest {

    @TempDir
    Path dir;

    private Process generate(String name, String... amount) throws IOException {
        List<String> command = ChildJvm.command(CosIdCommand.class.getName(), "generate", "--rate", "50000",
                "--store", "sqlite:" + dir.resolve("cosid.db"));
        command.addAll(List.of(amount));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectOutput(dir.resolve(name + ".out").toFile());
        builder.redirectError(dir.resolve(name + ".err").toFile());
        return builder.start();
    }

    private String err(String name) {
        try {
            return Files.readString(dir.resolve(name + ".err"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void twoConcurrentGeneratorsPrintDistinctIdsOnDifferentSlots() throws Exception {
        Process a = generate("a", "--duration", "10m");
        try {
            Await.until(() -> err("a").contains("cosid: acquired"), Duration.ofSeconds(60),
                    "the first generator to hold a slot");
            Process b = generate("b", "--count", "100000");
            assertTrue(b.waitFor(120, TimeUnit.SECONDS), "the second generator did not finish in 120 s");
            assertEquals(0, b.exitValue(), err("b"));
            assertTrue(a.isAlive(), "the first generator still runs: " + err("a"));
        } finally {
            a.destroy(); // SIGTERM: it stops issuing, ends on a whole line and releases its slot
        }
        assertTrue(a.waitFor(60, TimeUnit.SECONDS), "the first generator did not stop on SIGTERM");

        Set<Long> all = new HashSet<>();
        Set<Integer> slotsOfA = slots("a", all);
        Set<Integer> slotsOfB = slots("b", all);
        assertEquals(100_000, Files.readAllLines(dir.resolve("b.out")).size());
        assertEquals(1, slotsOfA.size(), "one slot for the first run: " + slotsOfA);
        assertEquals(1, slotsOfB.size(), "one slot for the second run: " + slotsOfB);
        assertNotEquals(slotsOfA, slotsOfB, "overlapping runs hold different slots");
        assertTrue(new File(dir.toFile(), "cosid.db").length() > 0);
    }

    /** Adds a run's ids to {@code all}, failing on a repeat, and returns the slots they carry. */
    private Set<Integer> slots(String name, Set<Long> all) throws IOException {
        List<String> lines = Files.readAllLines(dir.resolve(name + ".out"));
        assertTrue(!lines.isEmpty(), name + " printed ids");
        for (String line : lines) {
            assertTrue(all.add(Long.parseLong(line)), "id " + line + " of " + name + " was printed before");
        }
        return lines.stream().map(line -> IdLayout.MILLISECOND.parse(Long.parseLong(line)).slot())
                .collect(Collectors.toSet());
    }
}
