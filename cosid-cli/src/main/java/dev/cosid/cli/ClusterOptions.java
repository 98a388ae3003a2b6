package dev.cosid.cli;

import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The Kafka cluster of {@code ./cosid leader} and {@code ./cosid roles}: where it is, and how long to wait
 * for it. A cluster that does not answer within {@code --timeout} fails the command with one line, exit 1.
 */
final class ClusterOptions {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", required = true,
            description = "the Kafka cluster, HOST:PORT[,HOST:PORT...]")
    String bootstrap;

    @Option(names = "--timeout", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "how long to wait for the cluster before failing (default: ${DEFAULT-VALUE})")
    Duration timeout;

    /**
     * Checks the options and connects.
     *
     * @param commandLine the command, for a usage error
     * @param replicationFactor the replication factor if the topic must be created
     * @param leaseDuration the lease duration; transactions time out no sooner
     * @return the transport
     * @throws CommandLine.ParameterException for a malformed {@code --bootstrap} or {@code --timeout}
     */
    KafkaCoordinationTransport connect(CommandLine commandLine, int replicationFactor, Duration leaseDuration) {
        for (String server : bootstrap.split(",", -1)) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0 || !isPort(server.substring(colon + 1))) {
                throw new CommandLine.ParameterException(commandLine, "--bootstrap '" + bootstrap
                        + "' is not HOST:PORT[,HOST:PORT...]");
            }
        }
        if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofDays(1)) > 0) {
            throw new CommandLine.ParameterException(commandLine, "--timeout " + timeout.toMillis()
                    + " ms is not between 1 ms and one day");
        }
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new CommandLine.ParameterException(commandLine, "--replication-factor " + replicationFactor
                    + " is not between 1 and " + Short.MAX_VALUE);
        }
        return KafkaCoordinationTransport.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                replicationFactor, leaseDuration, timeout);
    }

    private static boolean isPort(String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit)) {
            return false;
        }
        int port = Integer.parseInt(text);
        return port >= 1 && port <= 65_535;
    }
}
