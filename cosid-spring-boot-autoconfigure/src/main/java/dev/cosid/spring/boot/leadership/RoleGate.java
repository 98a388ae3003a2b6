package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.LeaderWork;
import dev.cosid.coordination.Leadership;
import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the {@code @LeaderOnly} calls and fenced writes of one role while this member leads it, and stops the calls
 * when the leadership ends.
 *
 * <p>The role's listener opens the gate when the elector reports the election, before the application hears of
 * it, and shuts it when the elector reports the revocation. The gate is also the role's {@link LeaderWork}: the
 * elector runs it on a thread of its own while it leads and interrupts it when the leadership ends (fenced, renewals
 * failing at {@code deadline - margin}, or the elector closed). Then the gate shuts, interrupts every call still
 * inside, and waits for them to leave, at most the revoke margin. The elector gives the role back only after its
 * work has ended, so a successor that takes over at once never runs beside a call of this member that heeds its
 * interrupt. A call that ignores it runs on, unfenced: only fenced writes stay safe then. A leadership the elector
 * has revoked is never admitted, whether or not the gate has shut yet ({@link Leadership#live()}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RoleGate.Pass pass = gate.enter();
 * if (pass != null) {
 *     try { job(pass.leadership()); } finally { pass.close(); }
 * }
 * }</pre>
 */
final class RoleGate {

    private static final Logger LOG = LoggerFactory.getLogger(RoleGate.class);

    private final String role;
    private final Clock clock;
    /** The leadership the gate is open for, or null while closed. */
    private Leadership open;
    /** The threads inside, with how many nested calls each. */
    private final Map<Thread, Integer> inside = new HashMap<>();

    RoleGate(String role, Clock clock) {
        this.role = role;
        this.clock = clock;
    }

    /** One admitted call; closing it lets the gate's drain go on. */
    final class Pass implements AutoCloseable {
        private final Leadership leadership;
        private final Thread thread;

        private Pass(Leadership leadership, Thread thread) {
            this.leadership = leadership;
            this.thread = thread;
        }

        /** Returns the live leadership the call runs under. */
        Leadership leadership() {
            return leadership;
        }

        @Override
        public void close() {
            leave(thread);
        }
    }

    /**
     * Admits the calling thread if the gate is open for a live leadership.
     *
     * @return the pass, or null when this member does not lead the role now
     */
    synchronized Pass enter() {
        Leadership leadership = open;
        if (leadership == null || !leadership.live()) {
            return null;
        }
        Thread thread = Thread.currentThread();
        inside.merge(thread, 1, Integer::sum);
        return new Pass(leadership, thread);
    }

    private synchronized void leave(Thread thread) {
        inside.computeIfPresent(thread, (t, n) -> n == 1 ? null : n - 1);
        notifyAll();
    }

    /** Opens the gate for a leadership just won. */
    synchronized void open(Leadership leadership) {
        open = leadership;
    }

    /** Shuts the gate if it is open for a leadership that ended, and interrupts the calls inside; waits for none. */
    synchronized void shut(Leadership ended) {
        if (open == ended) {
            open = null;
            for (Thread thread : inside.keySet()) {
                thread.interrupt();
            }
        }
    }

    /** Returns the leadership the gate admits now: open and live. */
    synchronized Optional<Leadership> current() {
        return open != null && open.live() ? Optional.of(open) : Optional.empty();
    }

    /** Reports how many calls are inside now. */
    synchronized int inside() {
        return inside.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * Returns the work an elector runs while it leads: it opens the gate, waits for its interrupt, then closes the
     * gate and drains it.
     *
     * @param drain how long to wait for the calls inside to leave after their interrupt: the revoke margin
     */
    LeaderWork work(Duration drain) {
        return leadership -> {
            try {
                synchronized (this) {
                    open = leadership; // open already, unless the listener that opens it threw
                    while (true) {
                        wait(); // the elector interrupts this thread when the leadership ends
                    }
                }
            } finally {
                closeAndDrain(drain);
            }
        };
    }

    private void closeAndDrain(Duration drain) {
        long deadline = clock.monotonicNanos() + drain.toNanos();
        synchronized (this) {
            open = null;
            for (Thread thread : inside.keySet()) {
                thread.interrupt(); // again, harmless: a call still inside is still to stop
            }
            while (!inside.isEmpty()) {
                long left = deadline - clock.monotonicNanos();
                if (left <= 0) {
                    LOG.warn("{} call(s) of role '{}' did not stop within {} ms of their interrupt; the role is given "
                            + "back while they run, so only their fenced writes stay safe", inside(), role,
                            drain.toMillis());
                    return;
                }
                try {
                    wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
