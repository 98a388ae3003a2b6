package dev.cosid.simulation;

import dev.cosid.time.Scheduler;
import java.time.Duration;

/**
 * A process's scheduler on the virtual timeline: a task runs only while its incarnation is up; while the
 * process is paused it runs when the pause ends; after a crash it never runs.
 */
final class SimScheduler implements Scheduler {

    private final VirtualTime time;
    private final SimProcess node;
    private final int generation;
    private boolean closed;

    SimScheduler(VirtualTime time, SimProcess node, int generation) {
        this.time = time;
        this.node = node;
        this.generation = generation;
    }

    @Override
    public Cancellable schedule(Duration delay, Runnable task) {
        boolean[] cancelled = new boolean[1];
        time.after(delay.toNanos(), () -> deliver(task, cancelled));
        return () -> cancelled[0] = true;
    }

    private void deliver(Runnable task, boolean[] cancelled) {
        if (closed || cancelled[0] || node.generation() != generation || !node.running()) {
            return;
        }
        if (node.paused()) {
            time.at(node.pausedUntilNanos(), () -> deliver(task, cancelled));
            return;
        }
        task.run();
    }

    @Override
    public void close() {
        closed = true;
    }
}
