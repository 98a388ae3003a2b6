package dev.cosid.cli;

import dev.cosid.coordination.Leadership;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./cosid leader --exec CMD}: runs a command while the member leads, as {@code etcdctl lock} and
 * {@code consul lock} do, and stops it when the leadership ends.
 *
 * <p>The command runs under a small {@code /bin/sh} wrapper, in a session (and process group) of its own so
 * that a signal reaches everything it started. The wrapper forwards SIGTERM to that group, and holds the read
 * end of a pipe whose only write end this JVM holds: when the pipe closes, because the leader closed it after
 * the grace or because the leader's process died (even by SIGKILL, which no shutdown hook sees), the wrapper
 * kills the group at once. So the command never outlives the leader process.
 */
final class LeaderExec {

    /** The wrapper: $COSID_EXEC in a session of its own, TERM forwarded to it, the group killed when fd 0 closes. */
    private static final String WRAPPER = String.join("\n",
            "exec 3<&0 </dev/null",
            "setsid /bin/sh -c \"$COSID_EXEC\" 3<&- &",
            "pid=$!",
            "( cat <&3 >/dev/null; kill -KILL -$pid 2>/dev/null ) &",
            "watcher=$!",
            "exec 3<&-",
            "trap 'kill -TERM -$pid 2>/dev/null' TERM",
            "while :; do wait $pid; status=$?; kill -0 $pid 2>/dev/null || break; done",
            "kill -KILL $watcher 2>/dev/null",
            "exit $status");

    private static final Clock CLOCK = Clock.system();

    private final String command;
    private final Duration grace;
    private final PrintWriter out;

    LeaderExec(String command, Duration grace, PrintWriter out) {
        this.command = command;
        this.grace = grace;
        this.out = out;
    }

    /**
     * Runs the command until it exits or this thread is interrupted (the leadership ended).
     *
     * @param leadership the live leadership, whose token the command gets
     * @return the command's exit status when it ended by itself, or -1 when it was stopped
     */
    int runWhileLeading(Leadership leadership) {
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", WRAPPER)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        Map<String, String> env = builder.environment();
        env.put("COSID_EXEC", command);
        env.put("COSID_LEADER_TOKEN", leadership.token().toString());
        env.put("COSID_LEADER_ROLE", leadership.role().name());
        env.put("COSID_LEADER_MEMBER", leadership.lease().member().toString());
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start /bin/sh for --exec", e);
        }
        LeaderCommand.say(out, "started command (pid " + process.pid() + ") with token " + leadership.token());
        try {
            int status = process.waitFor();
            closePipe(process);
            LeaderCommand.say(out, "command exited with status " + status);
            return status;
        } catch (InterruptedException revoked) {
            stop(process);
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** SIGTERM to the command's group, then SIGKILL after the grace; returns once the wrapper has exited. */
    private void stop(Process process) {
        long start = CLOCK.monotonicNanos();
        // SIGTERM to the wrapper, which forwards it to the command's group. Not Process.destroy(): that also closes
        // the pipe, and the wrapper would take the closed pipe for a dead leader and kill the group at once
        process.toHandle().destroy();
        boolean exited = waitUninterruptibly(process, grace);
        if (!exited) {
            closePipe(process); // the wrapper kills the command's group at once
            process.destroyForcibly();
            waitUninterruptibly(process, Duration.ofSeconds(5));
        }
        long tookMillis = (CLOCK.monotonicNanos() - start) / 1_000_000;
        LeaderCommand.say(out, "stopped command with " + (exited ? "SIGTERM" : "SIGKILL after the grace of "
                + grace.toMillis() + " ms") + " in " + tookMillis + " ms");
    }

    private static void closePipe(Process process) {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // the wrapper is gone: the pipe is closed already
        }
    }

    private static boolean waitUninterruptibly(Process process, Duration bound) {
        long deadline = CLOCK.monotonicNanos() + bound.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - CLOCK.monotonicNanos();
                if (left <= 0) {
                    return !process.isAlive();
                }
                try {
                    return process.waitFor(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
