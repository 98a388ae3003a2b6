package dev.cosid.time;

import java.time.Duration;

/**
 * The seam through which CosId runs delayed work, such as the keeper's renewals.
 *
 * <p>Delays are measured on monotonic time, so a wall clock that jumps neither stops nor floods the
 * work. Production uses {@link #newSingleThread(String)}; tests and the simulator use
 * {@link ManualScheduler} and run the next step themselves.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (Scheduler scheduler = Scheduler.newSingleThread("cosid-keeper")) {
 *     scheduler.schedule(Duration.ofSeconds(10), () -> System.out.println("renew"));
 * }
 * }</pre>
 */
public interface Scheduler extends AutoCloseable {

    /**
     * Runs a task once after a delay.
     *
     * @param delay the delay, zero or more
     * @param task the task
     * @return a handle that cancels the task if it has not started
     */
    Cancellable schedule(Duration delay, Runnable task);

    /** Stops running tasks; tasks not yet started never run. Idempotent. */
    @Override
    void close();

    /**
     * Creates a scheduler backed by one daemon thread.
     *
     * @param threadName the name of the thread
     * @return a new scheduler
     */
    static Scheduler newSingleThread(String threadName) {
        return new ExecutorScheduler(threadName);
    }

    /** A scheduled task that can still be cancelled. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task if it has not started yet. */
        void cancel();
    }
}
