package dev.cosid.cli;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid leader}: campaigns for a role through the library's {@link Elector}, printing each
 * transition, until stopped; then it resigns and leaves the roster. With {@code --exec} it runs a command
 * while it leads and stops it when the leadership ends.
 *
 * <p>The token it prints is the lease's token, the one {@code ./cosid roles} shows and compares with the
 * coordinator. Under Kafka's transaction protocol version 2 every commit moves the producer epoch on, so
 * that token moves with every renewal while the epoch minted for the leadership stays the same; the
 * holding line names both.
 */
@Command(name = "leader", mixinStandardHelpOptions = true,
        description = {"Campaigns for a role on a Kafka cluster (--bootstrap) or a lease store (--store), holds and "
                + "renews it, and prints each transition "
                + "(registered, waiting until, challenged, holding with token, renewed, revoked) until stopped; "
                + "when stopped it resigns and removes its registration.",
                "When no renewal succeeds in time it prints 'revoked role R: renewals failing: ...' at the "
                        + "deadline minus --margin, before a standby may take over, and campaigns again.",
                "With --exec it runs CMD (through /bin/sh) while it leads, with the token in COSID_LEADER_TOKEN; "
                        + "when the leadership ends it sends the command SIGTERM, then SIGKILL after --grace; when "
                        + "the command exits by itself, the leader resigns, leaves and exits with its status.",
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
            description = "the longest wait between two looks at the role, and between two tries of a failed "
                    + "call (default: ${DEFAULT-VALUE})")
    Duration retry;

    @Option(names = "--margin", paramLabel = "D", converter = Durations.class,
            description = "how long before the lease's deadline the leader stops when no renewal succeeded; at "
                    + "least the clock skew between members (default: a tenth of the lease, at most half of "
                    + "lease - renew)")
    Duration margin;

    @Option(names = "--exec", paramLabel = "CMD",
            description = "a command to run through /bin/sh while leading, with COSID_LEADER_TOKEN, "
                    + "COSID_LEADER_ROLE and COSID_LEADER_MEMBER set")
    String exec;

    @Option(names = "--grace", paramLabel = "D", converter = Durations.class,
            description = "with --exec: how long the command has between SIGTERM and SIGKILL when the leadership "
                    + "ends; shorter than --margin, so it is gone before the deadline (default: half the margin)")
    Duration grace;

    @Option(names = "--replication-factor", paramLabel = "N", defaultValue = "1",
            description = "with --bootstrap: replication factor if the topic must be created; 3 in production "
                    + "(default: ${DEFAULT-VALUE})")
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
        Duration stopMargin = margin != null ? margin : Elector.defaultRevokeMargin(config);
        Duration killGrace = grace != null ? grace : stopMargin.dividedBy(2);
        if (grace != null && exec == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--grace needs --exec");
        }
        if (exec != null && (exec.isBlank() || killGrace.compareTo(stopMargin) >= 0)) {
            throw new CommandLine.ParameterException(spec.commandLine(), exec.isBlank() ? "--exec is empty"
                    : "--grace " + killGrace.toMillis() + " ms is not shorter than the margin of "
                    + stopMargin.toMillis() + " ms: the command would outlive the leadership");
        }
        if (margin != null) {
            checked(() -> Elector.checkRevokeMargin(config, margin)); // before the cluster is reached
        }
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            done.countDown();
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "cosid-leader-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        try (CoordinationTransport transport = cluster.open(spec.commandLine(), replicationFactor, lease, "--timeout",
                "--replication-factor")) {
            Transitions transitions = new Transitions(out, target, me);
            Elector.Builder real = Elector.builder(transport, target, me).config(config).retryInterval(retry)
                    .leaveOnClose(false).listener(transitions);
            if (margin != null) {
                real.revokeMargin(margin);
            }
            if (exec != null) {
                LeaderExec command = new LeaderExec(exec, killGrace, out);
                real.work(leadership -> {
                    int status = command.runWhileLeading(leadership);
                    if (status >= 0) {
                        // the command ended by itself: resign, leave and exit with its status. The role is held
                        // until the elector is closed, so that it does not campaign and run the command again.
                        exit.complete(status);
                        done.countDown();
                        new CountDownLatch(1).await();
                    }
                });
            }
            Elector elector = real.start();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            elector.close();
            leave(new CoordinationClient(transport, config, Clock.system()), target, me, out);
        } finally {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waits for stopped, counted down above
            }
        }
        return exit.getNow(0);
    }

    /** Turns a validation failure of an option into a usage error (exit 2). */
    private <T> T checked(Supplier<T> value) {
        try {
            return value.get();
        } catch (CoordinationException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Leaves the roster, so that roles lists only members still campaigning. */
    private static void leave(CoordinationClient client, Role target, MemberId me, PrintWriter out) {
        try {
            if (client.state(target).registration(me).isPresent()) {
                client.leave(target, me);
                say(out, "left role " + target + ": registration of " + me + " removed");
            }
        } catch (CoordinationException e) {
            say(out, "could not leave role " + target + " cleanly: " + e.getMessage());
        }
    }

    /** Prints each transition the elector reports, one line with its instant. */
    private static final class Transitions implements ElectionListener {
        private final PrintWriter out;
        private final Role target;
        private final MemberId me;

        Transitions(PrintWriter out, Role target, MemberId me) {
            this.out = out;
            this.target = target;
            this.me = me;
        }

        @Override
        public void registered(Role role, MemberId member) {
            say(out, "registered " + me + " for role " + target);
        }

        @Override
        public void waiting(Role role, long untilMillis, int rank) {
            say(out, "waiting until " + Instant.ofEpochMilli(untilMillis) + " (rank " + rank + ")");
        }

        @Override
        public void challenged(Role role, int rank) {
            say(out, "challenged role " + target + " as rank " + rank);
        }

        @Override
        public void elected(Leadership leadership) {
            say(out, "holding role " + target + " with token " + leadership.lease().token() + " until "
                    + Instant.ofEpochMilli(leadership.lease().deadline()) + minted(leadership));
        }

        @Override
        public void renewed(Leadership leadership, Lease lease) {
            say(out, "renewed role " + target + " with token " + lease.token() + " until "
                    + Instant.ofEpochMilli(lease.deadline()));
        }

        @Override
        public void renewalFailed(Leadership leadership, CoordinationException failure, long revokeAtMillis) {
            say(out, "renewal failed, retrying until " + Instant.ofEpochMilli(revokeAtMillis) + ": "
                    + failure.getMessage());
        }

        @Override
        public void revoked(Revocation revocation) {
            if (revocation.reason() == Revocation.Reason.RESIGNED) {
                say(out, "resigned role " + target);
            } else {
                say(out, "revoked role " + target + ": " + revocation);
            }
        }

        @Override
        public void campaignFailed(Role role, CoordinationException failure) {
            say(out, "error, retrying: " + failure.getMessage());
        }
    }

    /** Explains a lease token that differs from the minted epoch: transaction protocol v2 moved it on. */
    private static String minted(Leadership leadership) {
        if (leadership.lease().token().equals(leadership.token())) {
            return "";
        }
        return " (epoch minted as " + leadership.token() + "; transaction protocol v2 moves the token on with every "
                + "commit, and roles shows the same token)";
    }

    static void say(PrintWriter out, String line) {
        synchronized (out) {
            out.println(Instant.ofEpochMilli(Clock.system().nowMillis()) + " " + line);
            out.flush();
        }
    }
}
