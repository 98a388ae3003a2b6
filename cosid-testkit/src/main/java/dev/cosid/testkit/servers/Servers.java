package dev.cosid.testkit.servers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds server binaries; a missing one skips the test with the package to install, unless
 * {@code COSID_REQUIRE_SERVERS=true}, which makes it a failure.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Path redis = Servers.binary("redis-server", "redis-server", List.of("/usr/bin"));
 * }</pre>
 */
public final class Servers {

    private Servers() {
    }

    /** Reports whether missing servers fail the build instead of skipping tests. */
    public static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("COSID_REQUIRE_SERVERS"));
    }

    /**
     * Returns a server binary, or skips (or fails) the calling test naming the package to install.
     *
     * @param name the executable's name
     * @param debianPackage the package that provides it
     * @param directories where to look besides the PATH
     * @return the executable
     */
    public static Path binary(String name, String debianPackage, List<String> directories) {
        Optional<Path> found = find(name, directories);
        if (found.isEmpty()) {
            String message = name + " is not installed: apt-get install " + debianPackage;
            if (required()) {
                Assertions.fail(message + " (COSID_REQUIRE_SERVERS=true)");
            }
            Assumptions.abort(message + "; skipping");
        }
        return found.get();
    }

    static Optional<Path> find(String name, List<String> directories) {
        String path = System.getenv().getOrDefault("PATH", "");
        return java.util.stream.Stream.concat(directories.stream(), Arrays.stream(path.split(":")))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * Returns the newest PostgreSQL bin directories, highest version first.
     *
     * @return candidate directories
     */
    static List<String> postgresBinDirs() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (var versions = Files.list(root)) {
            return versions.map(dir -> dir.resolve("bin"))
                    .filter(Files::isDirectory)
                    .sorted(Comparator.comparing((Path dir) -> versionOf(dir.getParent())).reversed())
                    .map(Path::toString)
                    .collect(Collectors.toList());
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    private static int versionOf(Path dir) {
        try {
            return Integer.parseInt(dir.getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
