package dev.cosid.testkit.servers;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * The main class of one node of a {@link KafkaCluster}: formats the node's log directory with Kafka's own
 * {@code kafka.tools.StorageTool format} when asked to (what {@code kafka-storage.sh format} runs), then runs
 * {@code kafka.Kafka} on the node's configuration file (what {@code kafka-server-start.sh} runs), both in this one
 * JVM: a JVM of its own for the format would cost every node another start-up of two seconds on a loaded machine.
 * The Kafka server jars come from the class path; the test kit does not compile against them.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * java -cp CLASSPATH dev.cosid.testkit.servers.KafkaNodeMain --format CLUSTER_ID node-1/server.properties
 * java -cp CLASSPATH dev.cosid.testkit.servers.KafkaNodeMain node-1/server.properties   # a restart on its data
 * }</pre>
 */
public final class KafkaNodeMain {

    private KafkaNodeMain() {
    }

    /**
     * Formats the node if asked, then runs it until it is stopped.
     *
     * @param args {@code [--format CLUSTER_ID] CONFIG_FILE}
     * @throws Throwable whatever the format or the server throws, which ends this JVM
     */
    public static void main(String[] args) throws Throwable {
        String config;
        if (args.length == 3 && args[0].equals("--format")) {
            config = args[2];
            Object status = call("kafka.tools.StorageTool", "execute",
                    new Class<?>[] {String[].class, PrintStream.class},
                    new String[] {"format", "--cluster-id", args[1], "--config", config}, System.out);
            if (!Integer.valueOf(0).equals(status)) {
                System.err.println("kafka.tools.StorageTool format exited with " + status);
                System.exit(1);
            }
        } else if (args.length == 1) {
            config = args[0];
        } else {
            throw new IllegalArgumentException("usage: KafkaNodeMain [--format CLUSTER_ID] CONFIG_FILE, not "
                    + Arrays.toString(args));
        }
        call("kafka.Kafka", "main", new Class<?>[] {String[].class}, (Object) new String[] {config});
    }

    private static Object call(String className, String method, Class<?>[] types, Object... arguments)
            throws Throwable {
        try {
            return Class.forName(className).getMethod(method, types).invoke(null, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
