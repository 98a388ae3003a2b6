package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two real JVMs generating at the same time on one SQLite file. */
class TwoProcessesTest {

    @TempDir
    Path dir;

    private Process generate(String name) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                CosIdCommand.class.getName(), "generate", "--count", "100000", "--rate", "50000",
                "--store", "sqlite:" + dir.resolve("cosid.db"));
        builder.redirectOutput(dir.resolve(name + ".out").toFile());
        builder.redirectError(dir.resolve(name + ".err").toFile());
        return builder.start();
    }

    @Test
    void twoConcurrentGeneratorsPrintDistinctIdsOnDifferentSlots() throws Exception {
        Process a = generate("a");
        Process b = generate("b");
        for (Process process : List.of(a, b)) {
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "a generator did not finish in 120 s");
        }
        assertEquals(0, a.exitValue(), Files.readString(dir.resolve("a.err")));
        assertEquals(0, b.exitValue(), Files.readString(dir.resolve("b.err")));
        Set<Long> all = new HashSet<>();
        List<Set<Integer>> slots = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            List<String> lines = Files.readAllLines(dir.resolve(name + ".out"));
            assertEquals(100_000, lines.size());
            lines.forEach(line -> all.add(Long.parseLong(line)));
            slots.add(lines.stream().map(line -> IdLayout.MILLISECOND.parse(Long.parseLong(line)).slot())
                    .collect(Collectors.toSet()));
        }
        assertEquals(200_000, all.size(), "no id repeats");
        assertEquals(1, slots.get(0).size());
        assertEquals(1, slots.get(1).size());
        assertNotEquals(slots.get(0), slots.get(1), "overlapping runs hold different slots");
        assertTrue(new File(dir.toFile(), "cosid.db").length() > 0);
    }
}
