package dev.cosid.simulation;

import java.util.PriorityQueue;

/**
 * The simulation's one timeline: events run in time order, ties in the order they were scheduled.
 * Nothing runs concurrently, so a seed replays exactly.
 */
final class VirtualTime {

    private record Event(long atNanos, long sequence, Runnable task) {
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
            ? Long.compare(a.atNanos, b.atNanos) : Long.compare(a.sequence, b.sequence));
    private long nowNanos;
    private long sequence;
    private Runnable afterEach = () -> { };

    long nowNanos() {
        return nowNanos;
    }

    void at(long atNanos, Runnable task) {
        queue.add(new Event(Math.max(atNanos, nowNanos), sequence++, task));
    }

    void after(long delayNanos, Runnable task) {
        at(nowNanos + Math.max(0, delayNanos), task);
    }

    /** Sets what runs after every event, such as a checker that looks at the whole system at each instant. */
    void afterEach(Runnable observer) {
        this.afterEach = observer;
    }

    /** Runs events until the queue is empty or the next one lies past the end. */
    void runUntil(long endNanos) {
        while (!queue.isEmpty() && queue.peek().atNanos <= endNanos) {
            Event next = queue.poll();
            nowNanos = next.atNanos;
            next.task.run();
            afterEach.run();
        }
        nowNanos = Math.max(nowNanos, endNanos);
    }
}
