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
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid leader}: campaigns for a role, holds and renews it, printing each transition, until
 * stopped; then it resigns and leaves the roster.
 *
 * <p>The token it prints is the lease's token, the one {@code ./cosid roles} shows and compares with the
 * coordinator. Under Kafka's transaction protocol version 2 every commit moves the producer epoch on, so
 * that token moves with every renewal while the epoch minted for the leadership stays the same; the
 * holding line names both.
 */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = {"Campaigns for a role on a Kafka cluster, holds and renews it, and prints each transition "
                + "(registered, waiting until, challenged, holding with token, renewed, fenced) until stopped; "
                + "when stopped it resigns and removes its registration.",
                "The token printed is the lease's token, the one 'roles' shows: under transaction protocol v2 "
                        + "it moves on with every renewal."})
final class LeaderCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    ClusterOptions cluster;

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
        Role target = checked(() -> Role.of(role));
        MemberId me = checked(() -> MemberId.of(member));
        LeaseConfig config = checked(() -> LeaseConfig.of(lease, renew, stagger));
        if (retry.compareTo(Duration.ofMillis(1)) < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--retry " + retry.toMillis()
                    + " ms is not at least 1 ms");
        }
        Clock clock = Clock.system();
        AtomicBoolean running = new AtomicBoolean(true);
        CountDownLatch stopped = new CountDownLatch(1);
        KafkaCoordinationTransport transport = cluster.connect(spec.commandLine(), replicationFactor, lease);
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
            CoordinationClient client = new CoordinationClient(transport, config, clock, retry);
            Leadership held = campaign(client, config, target, me, clock, running, out);
            stop(client, held, target, me, out);
        } finally {
            stopped.countDown();
        }
        return 0;
    }

    /** Turns a validation failure of an option into a usage error (exit 2). */
    private <T> T checked(Supplier<T> value) {
        try {
            return value.get();
        } catch (CoordinationException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private Leadership campaign(CoordinationClient client, LeaseConfig config, Role target, MemberId me, Clock clock,
                                AtomicBoolean running, PrintWriter out) {
        Leadership leadership = null;
        String said = "";
        while (running.get()) {
            long now = clock.nowMillis();
            long sleepUntil;
            try {
                if (leadership == null) {
                    RoleState before = client.state(target);
                    Decision decision = Succession.evaluate(before, me, now, config);
                    if (decision.action() == Decision.Action.NOT_REGISTERED) {
                        said = say(out, said, "registered " + me + " for role " + target);
                    } else if (decision.action() == Decision.Action.CHALLENGE
                            || decision.action() == Decision.Action.HOLD) {
                        say(out, "", "challenged role " + target + " as rank " + decision.rank().orElse(0));
                    }
                    leadership = client.tryAcquire(target, me).orElse(null);
                    if (leadership != null) {
                        said = say(out, said, "holding role " + target + " with token " + leadership.lease().token()
                                + " until " + Instant.ofEpochMilli(leadership.lease().deadline()) + minted(leadership));
                        sleepUntil = leadership.timing().renewAtMillis();
                    } else {
                        Decision after = Succession.evaluate(client.state(target), me, clock.nowMillis(), config);
                        said = say(out, said, "waiting until " + Instant.ofEpochMilli(after.atMillis()) + " (rank "
                                + after.rank().orElse(-1) + ")");
                        sleepUntil = after.atMillis();
                    }
                } else if (leadership.renewDue()) {
                    leadership.renew();
                    say(out, "", "renewed role " + target + " with token " + leadership.lease().token() + " until "
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
        return leadership;
    }

    /** Explains a lease token that differs from the minted epoch: transaction protocol v2 moved it on. */
    private static String minted(Leadership leadership) {
        if (leadership.lease().token().equals(leadership.token())) {
            return "";
        }
        return " (epoch minted as " + leadership.token() + "; transaction protocol v2 moves the token on with every "
                + "commit, and roles shows the same token)";
    }

    /** Resigns if holding, then leaves the roster, so that roles lists only members still campaigning. */
    private static void stop(CoordinationClient client, Leadership held, Role target, MemberId me, PrintWriter out) {
        try {
            if (held != null) {
                held.close();
                say(out, "", "resigned role " + target);
            }
            if (client.state(target).registration(me).isPresent()) {
                client.leave(target, me);
                say(out, "", "left role " + target + ": registration of " + me + " removed");
            }
        } catch (CoordinationException e) {
            say(out, "", "could not leave role " + target + " cleanly: " + e.getMessage());
        }
    }

    private static String say(PrintWriter out, String previous, String line) {
        if (!line.equals(previous)) {
            out.println(Instant.ofEpochMilli(Clock.system().nowMillis()) + " " + line);
            out.flush();
        }
        return line;
    }
}
