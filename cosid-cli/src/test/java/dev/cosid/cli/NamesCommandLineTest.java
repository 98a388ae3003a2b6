package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cosid.testkit.BadNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's doors for names: {@code segment NAME}, {@code serve --segments} and {@code serve --names}
 * refuse every name of {@link BadNames#ALL} with exit status 2 and the rule's own message in one line, before
 * the store is opened.
 */
class NamesCommandLineTest {

    @TempDir
    Path dir;

    private String store() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private void assertRefused(Cli result, String command, String bad) {
        assertEquals(2, result.status(), bad + ": " + result.err());
        assertEquals("", result.out(), bad);
        assertEquals(command + ": " + BadNames.refusal(bad) + "\n", result.err(), bad);
        assertFalse(Files.exists(dir.resolve("cosid.db")), "the store was never opened for " + bad);
    }

    @Test
    void segmentRefusesEveryBadNameBeforeTheStore() {
        for (String bad : BadNames.ALL) {
            assertRefused(Cli.run("segment", bad, "--count", "1", "--store", store()), "cosid segment", bad);
        }
    }

    /** Runs serve, which blocks while it serves: a name it wrongly accepted fails the test instead of hanging it. */
    private static Cli serve(String... args) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run(args), "serve accepted " + List.of(args));
    }

    @Test
    void serveRefusesEveryBadSegmentOrIdSpaceNameBeforeTheStore() {
        for (String bad : BadNames.ALL) {
            assertRefused(serve("serve", "--port", "0", "--segments", "invoice," + bad, "--store", store()),
                    "cosid serve", bad);
            assertRefused(serve("serve", "--port", "0", "--names", "default," + bad, "--store", store()),
                    "cosid serve", bad);
        }
        assertRefused(serve("serve", "--port", "0", "--segments", "invoice,,ticket", "--store", store()),
                "cosid serve", "");
    }

    @Test
    void theNamesAtTheEdgesOfTheRuleAreCounters() {
        for (String good : BadNames.EDGES) {
            Cli run = Cli.run("segment", good, "--count", "2", "--store", store());
            assertEquals(0, run.status(), good + ": " + run.err());
            assertEquals("1\n2\n", run.out(), good);
        }
        Cli listed = Cli.run("segments", "--store", store());
        assertEquals(0, listed.status(), listed.err());
        assertEquals(BadNames.EDGES.size() + 2, listed.lines().size(), listed.out());
    }
}
