package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./cosid segment} on the embedded SQLite store: two concurrent JVMs, a third run, and bad input. */
class SegmentProcessesTest {

    @TempDir
    Path dir;

    @Test
    void twoConcurrentRunsPrintDistinctIncreasingIdsAndAThirdContinuesAtTheHighestPlusOne() throws Exception {
        long highest = SegmentRuns.twoConcurrentRunsThenAThird(dir, "sqlite:" + dir.resolve("cosid.db"));
        assertEquals(2L * SegmentRuns.COUNT, highest, "runs that reserve exactly their count leave no gap");
    }

    @Test
    void aRunStoppedBySigtermHandsItsUnusedRangeBackAndTheNextRunContinuesRightAfterIt() throws Exception {
        String store = "sqlite:" + dir.resolve("stopped.db");
        Process run = SegmentRuns.segment(dir, "long", store, 1_000_000_000_000L);
        try {
            Await.until(() -> dir.resolve("long.out").toFile().length() > 100_000, Duration.ofSeconds(60),
                    "the long run to print ids");
        } finally {
            run.destroy(); // SIGTERM: the runtime closes and hands the rest of its range back
        }
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the run did not stop on SIGTERM");
        List<String> printed = Files.readAllLines(dir.resolve("long.out"));
        long last = Long.parseLong(printed.get(printed.size() - 1));
        assertEquals(printed.size(), last, "the run printed 1.." + last + " without a gap");
        Cli next = Cli.run("segment", "orders", "--store", store);
        assertEquals(List.of(String.valueOf(last + 1)), next.lines(), next.err());
    }

    @Test
    void aCounterStartsAtOneAndEachRunContinuesWhereTheLastEnded() {
        String store = "sqlite:" + dir.resolve("one.db");
        Cli first = Cli.run("segment", "invoices", "--count", "2", "--store", store);
        assertEquals(0, first.status(), first.err());
        assertEquals(List.of("1", "2"), first.lines());
        assertEquals(List.of("3"), Cli.run("segment", "invoices", "--store", store).lines());
        assertEquals(List.of("1"), Cli.run("segment", "invoices", "--store", store, "--namespace", "other").lines());
        Cli listed = Cli.run("segments", "--store", store);
        assertTrue(listed.out().contains("1 segment counter\nNAME"), listed.out());
        assertTrue(listed.out().contains("\ninvoices "), listed.out());
        assertTrue(listed.out().endsWith(" 3\n"), listed.out());
    }

    @Test
    void badInputIsRefusedWithTheFix() {
        String store = "sqlite:" + dir.resolve("bad.db");
        Cli zero = Cli.run("segment", "orders", "--count", "0", "--store", store);
        assertEquals(2, zero.status());
        assertEquals("cosid segment: count 0 is less than 1\n", zero.err());
        Cli name = Cli.run("segment", "n".repeat(129), "--store", store);
        assertEquals(2, name.status());
        assertEquals("cosid segment: name '" + "n".repeat(40) + "...' has 129 characters; a counter or id space name is "
                + "1 to 128 characters of A-Z a-z 0-9 . _ -, other than . and ..\n", name.err());
        Cli slot = Cli.run("segment", "orders", "--static-slot", "1", "--state-file", dir.resolve("s").toString());
        assertEquals(2, slot.status());
        assertTrue(slot.err().contains("--static-slot cannot be used with segment: segment ids come from a counter "
                + "in the store (--store)"), slot.err());
        Cli missing = Cli.run("segment", "--store", store);
        assertEquals(2, missing.status());
        assertTrue(missing.err().contains("NAME"), missing.err());
    }
}
