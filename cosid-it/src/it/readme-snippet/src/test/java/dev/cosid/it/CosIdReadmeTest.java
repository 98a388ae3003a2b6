package dev.cosid.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/** The README's library {@code Main}, read from the README, compiled and run against the installed artifacts. */
class CosIdReadmeTest {

    private static final Pattern SNIPPET =
            Pattern.compile("## Use it as a library.*?```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theReadmeSnippetCompilesAndPrintsFiveIdsWithTheirParts() throws Exception {
        String readme = Files.readString(Path.of(System.getProperty("readme")), StandardCharsets.UTF_8);
        Matcher snippet = SNIPPET.matcher(readme);
        assertTrue(snippet.find(), "the README has a java block under 'Use it as a library'");
        Path work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "readme");
        Path source = work.resolve("Main.java");
        Files.writeString(source, snippet.group(1), StandardCharsets.UTF_8);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String classPath = System.getProperty("java.class.path");
        assertEquals(0, javac.run(null, null, null, "-d", work.toString(), "-cp", classPath, source.toString()),
                "the snippet compiles as written");

        Path out = work.resolve("out.txt");
        Path err = work.resolve("err.txt");
        // the SQLite driver loads a native library: Java 24 and later warn on stderr unless native access is on
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", work + File.pathSeparator + classPath, "Main")
                .directory(work.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the snippet ends within a minute");
        String printed = Files.readString(out);
        List<String> complaints = Files.readAllLines(err).stream().filter(line -> !line.startsWith("SLF4J(")).toList();
        assertEquals(0, run.exitValue(), printed + Files.readString(err));
        assertTrue(printed.matches("(\\d{15,19} IdParts\\[timestampMillis=\\d+, slot=\\d+, sequence=\\d+]\\n){5}"),
                printed);
        assertEquals(List.of(), complaints, "nothing on stderr but what SLF4J itself prints without a provider");
        assertTrue(Files.exists(work.resolve("cosid.db")), "the store is the SQLite file the snippet names");
    }
}
