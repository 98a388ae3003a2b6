package dev.cosid.cli;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.lease.LeaseStores;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * Where {@code ./cosid leader} and {@code ./cosid roles} elect: a Kafka cluster ({@code --bootstrap}, and how long
 * to wait for it) or a lease store ({@code --store}, the URL the ids use), exactly one of the two. A cluster that
 * does not answer within {@code --timeout} fails the command with one line, exit 1; a store's calls are bounded
 * as the id store's are.
 */
final class ClusterOptions {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
            description = "the Kafka cluster, HOST:PORT[,HOST:PORT...]; or --store")
    String bootstrap;

    @Option(names = "--store", paramLabel = "URL",
            description = "or a lease store, the one the ids use (docs/leadership.md, Leadership on the stores); "
                    + "messages show it with its password masked:" + StoreOptions.URLS)
    String store;

    @Option(names = "--timeout", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "with --bootstrap: how long to wait for the cluster before failing (default: "
                    + "${DEFAULT-VALUE})")
    Duration timeout;

    /** Where the roles are, for messages: the bootstrap servers, or the store URL with its password masked. */
    String where() {
        return store != null ? LeaseStores.redact(store) : bootstrap;
    }

    /**
     * Opens the transport of the one place the options name: the Kafka cluster or the store.
     *
     * @param commandLine the command, for a usage error
     * @param replicationFactor the replication factor if the Kafka topic must be created
     * @param leaseDuration the lease duration; Kafka transactions time out no sooner
     * @param kafkaOnly options that apply only to Kafka, refused with {@code --store} when given
     * @return the transport
     * @throws CommandLine.ParameterException when neither or both are given, or one is malformed
     */
    CoordinationTransport open(CommandLine commandLine, int replicationFactor, Duration leaseDuration,
                               String... kafkaOnly) {
        if ((bootstrap == null) == (store == null)) {
            throw new CommandLine.ParameterException(commandLine, "give exactly one of --bootstrap HOST:PORT (a Kafka "
                    + "cluster) and --store URL (a lease store)");
        }
        if (bootstrap != null) {
            return connect(commandLine, replicationFactor, leaseDuration);
        }
        for (String option : kafkaOnly) {
            if (commandLine.getParseResult().hasMatchedOption(option)) {
                throw new CommandLine.ParameterException(commandLine, option + " cannot be used with --store: it "
                        + "applies to a Kafka cluster (--bootstrap)");
            }
        }
        try {
            return CoordinationTransports.open(store);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(commandLine, e.getMessage());
        }
    }

    /**
     * Checks the options and connects.
     *
     * @param commandLine the command, for a usage error
     * @param replicationFactor the replication factor if the topic must be created
     * @param leaseDuration the lease duration; transactions time out no sooner
     * @return the transport
     * @throws CommandLine.ParameterException for a malformed {@code --bootstrap} or {@code --timeout}
     */
    private KafkaCoordinationTransport connect(CommandLine commandLine, int replicationFactor, Duration leaseDuration) {
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
