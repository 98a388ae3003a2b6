import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The quick start's {@code Main}, run from a fresh directory in a JVM of its own the way {@code mvn exec:java} runs
 * it ({@link ExecJava}): five ids, and no thread left behind.
 */
class MainTest {

    private static final Pattern LINE = Pattern.compile("(\\d+) (IdParts\\[.*])");

    @Test
    void printsFiveDistinctPositiveIdsInIncreasingOrderEachWithItsPartsAndLeavesNoThreadBehind() throws Exception {
        Path work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "main");
        Path out = work.resolve("out.txt");
        Path err = work.resolve("err.txt");
        // the quick compiler and the serial collector, as every JVM the tests start; the SQLite driver loads a
        // native library, which Java 24 and later warn about on stderr unless native access is on
        Process run = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "ExecJava")
                .directory(work.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "Main ends within a minute");
        String printed = Files.readString(out);
        assertEquals(0, run.exitValue(), printed + Files.readString(err));

        List<String> lines = printed.lines().toList();
        assertEquals(5, lines.size(), printed);
        List<Long> ids = new ArrayList<>();
        for (String line : lines) {
            Matcher matcher = LINE.matcher(line);
            assertTrue(matcher.matches(), "an id and its parts: " + line);
            long id = Long.parseLong(matcher.group(1));
            assertTrue(id > 0, "a positive id: " + line);
            assertEquals(IdLayout.MILLISECOND.parse(id).toString(), matcher.group(2), "the parts of " + id);
            if (!ids.isEmpty()) {
                assertTrue(id > ids.get(ids.size() - 1), "each id above the one before: " + printed);
            }
            ids.add(id);
        }
        assertEquals(5, ids.stream().distinct().count(), printed);
        List<String> complaints =
                Files.readAllLines(err).stream().filter(line -> !line.startsWith("SLF4J(")).toList();
        assertEquals(List.of(), complaints, "nothing on stderr but what SLF4J itself prints without a provider");
        assertTrue(Files.exists(work.resolve("cosid.db")), "the store is the SQLite file Main names");
    }
}
