package dev.cosid.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Time goes through {@link Clock}: production code never reads the JDK's clocks elsewhere. */
class NoRawTimeCallsTest {

    private static final Pattern RAW = Pattern.compile("System\\s*\\.\\s*(currentTimeMillis|nanoTime)\\s*\\(");

    static boolean readsRawTime(String source) {
        return RAW.matcher(source).find();
    }

    private static boolean isClockClass(Path file) {
        return file.toString().replace('\\', '/').contains("/dev/cosid/time/")
                && file.getFileName().toString().endsWith("Clock.java");
    }

    private static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("cosid-core"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("cannot find the project root above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    @Test
    void productionCodeReadsTimeOnlyThroughTheClockSeam() throws IOException {
        Path root = projectRoot();
        List<Path> offenders;
        try (Stream<Path> files = Files.walk(root)) {
            offenders = files
                    .filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> file.toString().replace('\\', '/').contains("/src/main/java/"))
                    .filter(file -> !isClockClass(file))
                    .filter(file -> {
                        try {
                            return readsRawTime(Files.readString(file));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .map(root::relativize)
                    .collect(Collectors.toList());
        }
        assertEquals(List.of(), offenders, "read time through dev.cosid.time.Clock instead");
    }

    @Test
    void theScanRecognisesEveryFormOfARawCall() {
        assertTrue(readsRawTime("long t = System.currentTimeMillis();"));
        assertTrue(readsRawTime("long t = System . nanoTime ();"));
        assertTrue(!readsRawTime("long t = clock.nowMillis();"));
    }
}
