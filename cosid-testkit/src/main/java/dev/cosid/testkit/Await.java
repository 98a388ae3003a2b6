package dev.cosid.testkit;

import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a bound, for tests against real servers: never a bare sleep.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Await.until(() -> events.contains("renewed"), Duration.ofSeconds(10), "a renewal after the restart");
 * }</pre>
 */
public final class Await {

    private static final Clock CLOCK = Clock.system();

    private Await() {
    }

    /**
     * Returns once the condition holds, or fails after the bound.
     *
     * @param condition the condition, polled every 10 ms
     * @param bound the longest wait
     * @param what what is awaited, for the failure message
     */
    public static void until(BooleanSupplier condition, Duration bound, String what) {
        until(condition, bound, () -> what);
    }

    /**
     * Returns once the condition holds, or fails after the bound with a message made at that moment.
     *
     * @param condition the condition, polled every 10 ms
     * @param bound the longest wait
     * @param what what is awaited and what was seen, for the failure message; read only on failure
     */
    public static void until(BooleanSupplier condition, Duration bound, java.util.function.Supplier<String> what) {
        long deadline = CLOCK.monotonicNanos() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (CLOCK.monotonicNanos() > deadline) {
                throw new AssertionError("waited " + bound.toMillis() + " ms for " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /**
     * Lets real time pass, for a test that must outlast a lease; the wait is the point of the test.
     *
     * @param extent how long
     */
    public static void elapse(Duration extent) {
        long deadline = CLOCK.monotonicNanos() + extent.toNanos();
        for (long left = extent.toNanos(); left > 0; left = deadline - CLOCK.monotonicNanos()) {
            LockSupport.parkNanos(left);
        }
    }
}
