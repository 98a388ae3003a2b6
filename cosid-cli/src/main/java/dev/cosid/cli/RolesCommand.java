package dev.cosid.cli;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./cosid roles}: prints every role's holder, token, deadline and roster. */
@Command(name = "roles", mixinStandardHelpOptions = true,
        description = "Prints every role on a Kafka cluster: holder, token, whether it is current, deadline, roster.")
final class RolesCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", required = true, description = "the Kafka cluster")
    String bootstrap;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try (KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(bootstrap, 1)) {
            CoordinationClient client = new CoordinationClient(transport, LeaseConfig.DEFAULT, Clock.system());
            for (LeadershipStatus status : client.roles()) {
                out.println("role " + status.role()
                        + " holder " + status.holder().map(Object::toString).orElse("-")
                        + " token " + status.lease().map(lease -> lease.token().toString()).orElse("-")
                        + (status.current() ? " (current)" : " (not current; coordinator at "
                                + status.token().map(Object::toString).orElse("-") + ")")
                        + " deadline " + status.lease().map(lease -> Instant.ofEpochMilli(lease.deadline()).toString())
                                .orElse("-")
                        + " roster " + status.state().roster().stream().map(RosterEntry::member).map(Object::toString)
                                .collect(Collectors.joining(",", "[", "]")));
            }
            out.flush();
        }
        return 0;
    }
}
