package dev.cosid.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM that a test starts beside itself: the test's own {@code java} on the test's class
 * path, with the quick compiler only and the serial collector. A child lives for seconds and the suite runs
 * many at once on two cores, where the optimizing compiler's threads cost more CPU than they save (a
 * {@code cosid generate} of 1,000 ids: about 1.5 CPU seconds with it, 1.0 without). The surefire forks run
 * with the same options (property {@code test.jvm.options} of the parent POM).
 */
public final class ChildJvm {

    /** The options every child gets, before its own. */
    public static final List<String> OPTIONS =
            List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED");

    private ChildJvm() {
    }

    /** {@code java}, the common options, the class path and {@code mainClass} with its arguments. */
    public static List<String> command(String mainClass, String... arguments) {
        return command(List.of(), mainClass, List.of(arguments));
    }

    /** As {@link #command(String, String...)}, with the child's own JVM options (a heap bound, say) too. */
    public static List<String> command(List<String> jvmOptions, String mainClass, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(OPTIONS);
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(arguments);
        return command;
    }
}
