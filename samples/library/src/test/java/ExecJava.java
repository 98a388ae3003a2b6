import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs {@link Main} as {@code mvn exec:java} does: on a thread of a thread group of its own, then waits for every
 * thread of that group to end. exec:java waits 15 s for a thread that stays, then warns; here a thread still
 * alive five seconds after {@code Main} returned is named on stderr and the exit status is 3.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * java -cp CLASSPATH ExecJava    # Main's output; exit status 0, 1 if Main threw, 3 if a thread stayed
 * }</pre>
 */
final class ExecJava {

    private static final long PATIENCE_MILLIS = 5_000;

    private ExecJava() {
    }

    public static void main(String[] args) throws InterruptedException {
        ThreadGroup group = new ThreadGroup("Main");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread main = new Thread(group, () -> Main.main(args), "main");
        main.setUncaughtExceptionHandler((thread, e) -> failure.set(e));
        main.start();
        main.join();
        if (failure.get() != null) {
            failure.get().printStackTrace();
            System.exit(1);
        }
        List<Thread> staying = alive(group);
        for (Thread thread : staying) {
            thread.join(PATIENCE_MILLIS);
        }
        staying = alive(group);
        if (!staying.isEmpty()) {
            for (Thread thread : staying) {
                System.err.println("thread '" + thread.getName() + "' (daemon " + thread.isDaemon()
                        + ") still alive " + PATIENCE_MILLIS + " ms after Main returned");
            }
            System.exit(3);
        }
    }

    private static List<Thread> alive(ThreadGroup group) {
        Thread[] threads = new Thread[group.activeCount() + 16];
        int count = group.enumerate(threads);
        List<Thread> alive = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (threads[i].isAlive()) {
                alive.add(threads[i]);
            }
        }
        return alive;
    }
}
