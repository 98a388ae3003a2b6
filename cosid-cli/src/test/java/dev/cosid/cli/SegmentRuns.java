package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Two real JVMs printing {@code ./cosid segment orders --count 100000} at once on one store, then a
 * third run after both closed: the acceptance runs of segment ids on each store.
 */
final class SegmentRuns {

    static final int COUNT = 100_000;

    private SegmentRuns() {
    }

    static Process segment(Path dir, String run, String store, long count) throws IOException {
        List<String> command = ChildJvm.command(CosIdCommand.class.getName(), "segment", "orders",
                "--count", String.valueOf(count), "--store", store, "--owner-key", run);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.redirectOutput(dir.resolve(run + ".out").toFile());
        builder.redirectError(dir.resolve(run + ".err").toFile());
        return builder.start();
    }

    /**
     * Runs two concurrent segment runs, checks 200,000 distinct positive ids with each run's increasing,
     * then a third run, which must start at the highest id + 1.
     *
     * @return the highest id of the two runs
     */
    static long twoConcurrentRunsThenAThird(Path dir, String store) throws Exception {
        Process a = segment(dir, "a", store, COUNT);
        Process b = segment(dir, "b", store, COUNT);
        for (Process process : List.of(a, b)) {
            assertTrue(process.waitFor(180, TimeUnit.SECONDS), "a segment run did not finish in 180 s");
        }
        assertEquals(0, a.exitValue(), Files.readString(dir.resolve("a.err")));
        assertEquals(0, b.exitValue(), Files.readString(dir.resolve("b.err")));
        Set<Long> all = new HashSet<>();
        long highest = 0;
        for (String run : List.of("a", "b")) {
            List<String> lines = Files.readAllLines(dir.resolve(run + ".out"));
            assertEquals(COUNT, lines.size(), run + " printed every id");
            long previous = 0;
            for (String line : lines) {
                long id = Long.parseLong(line);
                assertTrue(id > previous, run + " printed " + id + " after " + previous);
                assertTrue(all.add(id), "id " + id + " of " + run + " was printed before");
                previous = id;
            }
            highest = Math.max(highest, previous);
        }
        assertEquals(2 * COUNT, all.size());

        Cli third = Cli.run("segment", "orders", "--count", "3", "--store", store, "--owner-key", "c");
        assertEquals(0, third.status(), third.err());
        assertEquals(List.of(String.valueOf(highest + 1), String.valueOf(highest + 2), String.valueOf(highest + 3)),
                third.lines(), "the third run continues at the highest id + 1");
        Cli listed = Cli.run("segments", "--store", store);
        assertEquals(0, listed.status(), listed.err());
        assertTrue(listed.out().matches("(?s).*\\norders +" + (highest + 3) + "\n.*"), listed.out());
        return highest;
    }
}
