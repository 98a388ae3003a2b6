package dev.cosid.cli;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.Decision;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.coordination.Succession;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid roles}: prints every role's holder, token, deadline and roster, one line per role, or
 * one line saying there is none.
 *
 * <p>A member that stops cleanly leaves the roster. One that was killed cannot: it is marked
 * {@code stale} once the succession rules have had it renew or challenge more than one renew interval
 * ago and it still does not hold the role, which no live member lets happen. While a live holder keeps
 * renewing, a standby is never marked, since it is waiting its turn.
 */
@Command(name = "roles", mixinStandardHelpOptions = true,
        description = {"Prints every role on a Kafka cluster (--bootstrap) or a lease store (--store): holder, token, "
                + "whether it is current, deadline, roster.",
                "A member whose renewal or challenge is overdue by more than one renew interval is marked stale; "
                        + "give the members' --lease, --renew and --stagger to judge it."})
final class RolesCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ClusterOptions cluster;

    @Option(names = "--lease", paramLabel = "D", converter = Durations.class, defaultValue = "30s",
            description = "the members' lease duration (default: ${DEFAULT-VALUE})")
    Duration lease;

    @Option(names = "--renew", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "the members' renew interval, the grace before a member is stale (default: ${DEFAULT-VALUE})")
    Duration renew;

    @Option(names = "--stagger", paramLabel = "D", converter = Durations.class, defaultValue = "5s",
            description = "the members' challenge stagger (default: ${DEFAULT-VALUE})")
    Duration stagger;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        LeaseConfig policy;
        try {
            policy = LeaseConfig.of(lease, renew, stagger);
        } catch (CoordinationException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Clock clock = Clock.system();
        try (CoordinationTransport transport = cluster.open(spec.commandLine(), 1, lease, "--timeout")) {
            CoordinationClient client = new CoordinationClient(transport, policy, clock);
            List<LeadershipStatus> roles = client.roles();
            if (roles.isEmpty()) {
                out.println(cluster.bootstrap != null ? "no roles in " + KafkaCoordinationTransport.TOPIC + " on "
                        + cluster.bootstrap : "no roles in " + cluster.where());
            }
            long now = clock.nowMillis();
            for (LeadershipStatus status : roles) {
                out.println(line(status, policy, now));
            }
            out.flush();
        }
        return 0;
    }

    private static String line(LeadershipStatus status, LeaseConfig policy, long now) {
        String current = status.lease().isEmpty() ? " (no lease)"
                : status.current() ? " (current)"
                : " (not current; coordinator at " + status.token().map(Object::toString).orElse("-") + ")";
        return "role " + status.role()
                + " holder " + status.holder().map(Object::toString).orElse("-")
                + " token " + status.lease().map(lease -> lease.token().toString()).orElse("-") + current
                + " deadline " + status.lease().map(lease -> Instant.ofEpochMilli(lease.deadline()).toString()).orElse("-")
                + " roster " + status.state().roster().stream().map(entry -> member(status, entry, policy, now))
                        .collect(Collectors.joining(", ", "[", "]"));
    }

    /** One roster entry: holder or standby with its rank, and stale when its move is overdue by a renew interval. */
    private static String member(LeadershipStatus status, RosterEntry entry, LeaseConfig policy, long now) {
        Optional<Lease> lease = status.lease();
        boolean holder = lease.isPresent() && lease.get().member().equals(entry.member());
        Decision decision = Succession.evaluate(status.state(), entry.member(), now, policy);
        String what = holder ? "holder" : "standby, rank " + decision.rank().orElse(-1);
        if (decision.action() == Decision.Action.CHALLENGE
                && now - decision.atMillis() >= policy.renewInterval().toMillis()) {
            what += holder ? ", stale: not renewed since its lease expired at " + Instant.ofEpochMilli(decision.atMillis())
                    : ", stale: did not challenge at " + Instant.ofEpochMilli(decision.atMillis());
        }
        return entry.member() + " (" + what + ")";
    }
}
