package dev.cosid.cli;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.Decision;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleState;
import dev.cosid.coordination.Succession;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./cosid leader}: campaigns for a role, holds and renews it, printing each transition, until stopped. */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = {"Campaigns for a role on a Kafka cluster, holds and renews it, and prints each transition "
                + "(registered, waiting until, challenged, holding with token, renewed, fenced) until stopped."})
final class LeaderCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", required = true, description = "the Kafka cluster")
    String bootstrap;

    @Option(names = "--role", paramLabel = "R", required = true, description = "the role, e.g. controller")
    String role;

    @Option(names = "--member", paramLabel = "M", required = true, description = "this candidate's id")
    String member;

    @Option(names = "--lease", paramLabel = "D", converter = Durations.class, defaultValue = "30s",
            description = "the lease duration (default: ${DEFAULT-VALUE})")
    Duration lease;

    @Option(names = "--renew", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "the renew interval (default: ${DEFAULT-VALUE})")
    Duration renew;

    @Option(names = "--stagger", paramLabel = "D", converter = Durations.class, defaultValue = "5s",
            description = "the challenge stagger between ranks (default: ${DEFAULT-VALUE})")
    Duration stagger;

    @Option(names = "--retry", paramLabel = "D", converter = Durations.class, defaultValue = "1s",
            description = "the longest wait between two looks at the role (default: ${DEFAULT-VALUE})")
    Duration retry;

    @Option(names = "--replication-factor", paramLabel = "N", defaultValue = "1",
            description = "replication factor if the topic must be created; 3 in production (default: ${DEFAULT-VALUE})")
    int replicationFactor;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        Role target = Role.of(role);
        MemberId me = MemberId.of(member);
        LeaseConfig config = LeaseConfig.of(lease, renew, stagger);
        Clock clock = Clock.system();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch stopped = new CountDownLatch(1);
        KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), replicationFactor, lease);
        Thread hook = new Thread(() -> {
            running.set(false);
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cosid-leader-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try (transport) {
            campaign(new CoordinationClient(transport, config, clock, retry), target, me, clock, running, out);
        } finally {
            stopped.countDown();
        }
        return 0;
    }

    private void campaign(CoordinationClient client, Role target, MemberId me, Clock clock, AtomicBoolean running,
                          PrintWriter out) {
        Leadership leadership = null;
        String said = "";
        while (running.get()) {
            long now = clock.nowMillis();
            long sleepUntil;
            try {
                if (leadership == null) {
                    RoleState before = client.state(target);
                    Decision decision = Succession.evaluate(before, me, now, config());
                    if (decision.action() == Decision.Action.NOT_REGISTERED) {
                        said = say(out, said, "registered " + me + " for role " + target);
                    } else if (decision.action() == Decision.Action.CHALLENGE
                            || decision.action() == Decision.Action.HOLD) {
                        say(out, "", "challenged role " + target + " as rank " + decision.rank().orElse(0));
                    }
                    leadership = client.tryAcquire(target, me).orElse(null);
                    if (leadership != null) {
                        said = say(out, said, "holding role " + target + " with token " + leadership.token()
                                + " until " + Instant.ofEpochMilli(leadership.lease().deadline()));
                        sleepUntil = leadership.timing().renewAtMillis();
                    } else {
                        Decision after = Succession.evaluate(client.state(target), me, clock.nowMillis(), config());
                        said = say(out, said, "waiting until " + Instant.ofEpochMilli(after.atMillis()) + " (rank "
                                + after.rank().orElse(-1) + ")");
                        sleepUntil = after.atMillis();
                    }
                } else if (leadership.renewDue()) {
                    leadership.renew();
                    say(out, "", "renewed role " + target + " with token " + leadership.token() + " until "
                            + Instant.ofEpochMilli(leadership.lease().deadline()));
                    sleepUntil = leadership.timing().renewAtMillis();
                } else {
                    sleepUntil = leadership.timing().renewAtMillis();
                }
            } catch (FencedException e) {
                said = say(out, said, "fenced: " + e.getMessage());
                leadership = null;
                sleepUntil = now;
            } catch (CoordinationException e) {
                say(out, "", "error, retrying: " + e.getMessage());
                sleepUntil = now + retry.toMillis();
            }
            long wait = Math.max(1, Math.min(sleepUntil - clock.nowMillis(), retry.toMillis()));
            clock.park(wait * 1_000_000L);
        }
        if (leadership != null) {
            leadership.close();
            say(out, "", "resigned role " + target);
        }
    }

    private LeaseConfig config() {
        return LeaseConfig.of(lease, renew, stagger);
    }

    private static String say(PrintWriter out, String previous, String line) {
        if (!line.equals(previous)) {
            out.println(Instant.ofEpochMilli(Clock.system().nowMillis()) + " " + line);
            out.flush();
        }
        return line;
    }
}
