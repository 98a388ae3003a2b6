package dev.cosid.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A scheduler that runs nothing by itself: a test or the simulator runs the next step.
 *
 * <p>Due times are read from a {@link ManualClock}'s monotonic time. {@link #runDue()} runs every
 * task that is due now; {@link #runNext()} advances the clock to the earliest task and runs it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ManualClock clock = new ManualClock(0);
 * ManualScheduler scheduler = new ManualScheduler(clock);
 * scheduler.schedule(Duration.ofSeconds(10), task);
 * scheduler.runNext(); // the clock is now 10 s later and the task has run
 * }</pre>
 */
public final class ManualScheduler implements Scheduler {

    private final ManualClock clock;
    private final List<Task> tasks = new ArrayList<>();
    private long sequence;
    private boolean closed;

    /**
     * Creates a scheduler driven by the given clock.
     *
     * @param clock the clock whose monotonic time decides what is due
     */
    public ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Cancellable schedule(Duration delay, Runnable task) {
        if (closed) {
            return () -> { };
        }
        Task scheduled = new Task(clock.monotonicNanos() + delay.toNanos(), sequence++, task);
        tasks.add(scheduled);
        return () -> cancel(scheduled);
    }

    private synchronized void cancel(Task task) {
        tasks.remove(task);
    }

    /**
     * Runs every task that is due at the clock's current time, including tasks they schedule
     * with no delay.
     *
     * @return how many tasks ran
     */
    public int runDue() {
        int ran = 0;
        for (Optional<Task> next = takeDue(); next.isPresent(); next = takeDue()) {
            next.get().action.run();
            ran++;
        }
        return ran;
    }

    /**
     * Advances the clock to the earliest pending task, if it lies in the future, and runs it.
     *
     * @return false when nothing was pending
     */
    public boolean runNext() {
        Optional<Task> next;
        synchronized (this) {
            next = earliest();
            if (next.isEmpty()) {
                return false;
            }
            long wait = next.get().dueNanos - clock.monotonicNanos();
            if (wait > 0) {
                clock.advance(Duration.ofNanos(wait));
            }
            tasks.remove(next.get());
        }
        next.get().action.run();
        return true;
    }

    /** Returns the delay until the earliest pending task, if any. */
    public synchronized Optional<Duration> nextDelay() {
        return earliest().map(task -> Duration.ofNanos(Math.max(0, task.dueNanos - clock.monotonicNanos())));
    }

    /** Returns how many tasks are pending. */
    public synchronized int pending() {
        return tasks.size();
    }

    private synchronized Optional<Task> takeDue() {
        Optional<Task> next = earliest().filter(task -> task.dueNanos <= clock.monotonicNanos());
        next.ifPresent(tasks::remove);
        return next;
    }

    @Override
    public synchronized void close() {
        closed = true;
        tasks.clear();
    }

    /**
     * The task due first, and of those the one scheduled first. A plain loop, not a stream with a comparator held
     * in a static field: Lincheck, which drives the segment chain through this scheduler, snapshots the static
     * state its operations reach and cannot restore the JDK's comparator lambdas.
     */
    private Optional<Task> earliest() {
        Task first = null;
        for (Task task : tasks) {
            if (first == null || task.dueNanos < first.dueNanos
                    || (task.dueNanos == first.dueNanos && task.sequence < first.sequence)) {
                first = task;
            }
        }
        return Optional.ofNullable(first);
    }

    private static final class Task {
        final long dueNanos;
        final long sequence;
        final Runnable action;

        Task(long dueNanos, long sequence, Runnable action) {
            this.dueNanos = dueNanos;
            this.sequence = sequence;
            this.action = action;
        }
    }
}
