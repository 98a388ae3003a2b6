package dev.cosid;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deliberately broken copy of {@link SegmentChain}, for the negative controls of
 * {@link SegmentChainLincheckTest}: the same code with one {@link Flaw} switched on, so that the Lincheck test
 * is shown to catch it. Test code only; the production class has no such switch.
 */
final class FlawedSegmentChain implements SegmentId {

    private static final Logger LOG = LoggerFactory.getLogger(FlawedSegmentChain.class);

    /** Added to a cursor at close: no range ends at or past it, and no count of draws reaches 2^63. */
    static final long CLOSED_JUMP = 1L << 62;
    private static final long PARK_NANOS = 100_000L;
    private static final int RANGES_PER_FETCH = 64;
    private static final long BACKOFF_FIRST_NANOS = 100_000_000L;
    private static final long BACKOFF_MAX_NANOS = 1_000_000_000L;
    private static final VarHandle CURRENT;

    static {
        try {
            CURRENT = MethodHandles.lookup().findVarHandle(FlawedSegmentChain.class, "current", SegmentLink.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private enum State { RUNNING, CLOSED, STOPPED }

    /** The one thing broken in this copy. */
    enum Flaw {
        /** The range switch writes {@code current} instead of compare-and-setting it. */
        SWITCH_WITHOUT_CAS,
        /** Close reads the last link's cursor instead of jumping it. */
        CLOSE_WITHOUT_JUMP,
        /** Close hands the unused ranges back oldest first. */
        GIVE_BACK_OLDEST_FIRST
    }

    private final Flaw flaw;

    private final String namespace;
    private final String name;
    private final LeaseStore store;
    private final Clock clock;
    private final Scheduler scheduler;
    private final CosIdListener listener;
    private final SegmentPolicy policy;
    private final long maxWaitNanos;
    private final double prefetchSeconds;
    /** The closed link: a caller that reads it throws. */
    private final SegmentLink closedLink = new SegmentLink(null, CLOSED_JUMP);

    /** The link ids are drawn from; written by CAS only. */
    @SuppressWarnings("unused")
    private volatile SegmentLink current;
    /** The ids of every link {@code current} moved past. */
    private final AtomicLong issuedInPastLinks = new AtomicLong();
    private final AtomicBoolean fetchScheduled = new AtomicBoolean();
    /** Set by a caller that found the chain empty, so the next range is sized up. */
    private volatile boolean starved;
    private volatile Throwable lastFailure;

    // guarded by lock: the fetch task, close and stop
    private final Object lock = new Object();
    private State state = State.RUNNING;
    private SegmentLink tail;
    private long step;
    /** How many ids the chain keeps ahead: a step, or the prefetch time at the observed rate when more. */
    private long distance;
    private double rate;
    private long measuredAtNanos;
    private long measuredIssued;
    private int failures;
    /** The ids of every range reserved, against the policy's limit. */
    private volatile long reservedIds;
    private volatile String stopReason;

    private FlawedSegmentChain(Flaw flaw, String namespace, String name, LeaseStore store, Clock clock,
                               Scheduler scheduler, CosIdListener listener, SegmentPolicy policy, long maxWaitNanos) {
        this.flaw = flaw;
        this.namespace = namespace;
        this.name = name;
        this.store = store;
        this.clock = clock;
        this.scheduler = scheduler;
        this.listener = listener;
        this.policy = policy;
        this.maxWaitNanos = maxWaitNanos;
        this.prefetchSeconds = policy.prefetch().toNanos() / 1e9;
        this.step = policy.minStep();
        this.distance = step;
    }

    /**
     * Creates a chain on a first range the caller reserved, and asks for the next one in the background.
     *
     * @param first the first range, reserved with {@link SegmentPolicy#minStep()} ids
     */
    static FlawedSegmentChain start(Flaw flaw, String namespace, String name, LeaseStore store, Clock clock, Scheduler scheduler,
                              CosIdListener listener, SegmentPolicy policy, long maxWaitNanos, SegmentRange first) {
        FlawedSegmentChain chain = new FlawedSegmentChain(flaw, namespace, name, store, clock, scheduler, listener, policy,
                maxWaitNanos);
        String misfit = chain.misfit(first);
        if (misfit != null) {
            throw new IllegalStateException(misfit);
        }
        SegmentLink link = new SegmentLink(first, 0);
        link.trigger = first.first() + first.size() / 2;
        chain.tail = link;
        chain.reservedIds = first.size();
        chain.current = link;
        chain.measuredAtNanos = clock.monotonicNanos();
        chain.requestFetch();
        return chain;
    }

    @Override
    public String name() {
        return name;
    }

    /** Returns the policy the chain sizes its ranges by. */
    SegmentPolicy policy() {
        return policy;
    }

    @Override
    public long nextId() {
        SegmentLink link = current;
        long id = link.draw(1);
        if (id <= link.last) {
            if (id == link.trigger) {
                requestFetch();
            }
            return id;
        }
        return nextIdSlow();
    }

    private long nextIdSlow() {
        long waitStart = Long.MIN_VALUE;
        for (;;) {
            SegmentLink link = current;
            // read before adding, so that a caller waiting on a used-up range does not move its cursor
            if (link.cursor() <= link.last) {
                long id = link.draw(1);
                if (id <= link.last) {
                    if (id == link.trigger) {
                        requestFetch();
                    }
                    return id;
                }
            }
            waitStart = moveOn(link, waitStart);
        }
    }

    @Override
    public long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count + " is less than 1");
        }
        long[] ids = new long[count];
        int filled = 0;
        long waitStart = Long.MIN_VALUE;
        while (filled < count) {
            SegmentLink link = current;
            if (link.cursor() <= link.last) {
                long wanted = count - filled;
                long start = link.draw(wanted);
                if (start <= link.last) {
                    long run = Math.min(wanted, link.last - start + 1);
                    for (long i = 0; i < run; i++) {
                        ids[filled++] = start + i;
                    }
                    if (start <= link.trigger && link.trigger < start + run) {
                        requestFetch();
                    }
                    continue;
                }
            }
            waitStart = moveOn(link, waitStart);
        }
        return ids;
    }

    /**
     * Moves {@code current} past a used-up link, or waits a little for the next range.
     *
     * @param link the used-up link the caller read
     * @param waitStart when the caller began to wait, or {@code Long.MIN_VALUE}
     * @return when the caller began to wait, or {@code Long.MIN_VALUE}
     */
    private long moveOn(SegmentLink link, long waitStart) {
        if (link == closedLink) {
            throw closed();
        }
        SegmentLink next = link.next;
        if (next != null) {
            boolean moved;
            if (flaw == Flaw.SWITCH_WITHOUT_CAS) {
                current = next;
                moved = true;
            } else {
                moved = CURRENT.compareAndSet(this, link, next);
            }
            if (moved) {
                issuedInPastLinks.addAndGet(link.size());
                if (next.next == null) {
                    // the last range reserved is now in use: a missed trigger must not leave the chain to run dry
                    requestFetch();
                }
            }
            return waitStart;
        }
        // the limit's last range is linked before reservedIds counts it: read the link again after the count
        if (policy.limit() > 0 && reservedIds >= policy.limit() && link.next == null) {
            throw new IdUnavailableException(IdUnavailableException.Reason.SEGMENT_PENDING, "segment '" + name
                    + "' of namespace '" + namespace + "' issued its limit of " + policy.limit() + " ids");
        }
        starved = true;
        requestFetch();
        long now = clock.monotonicNanos();
        long started = waitStart == Long.MIN_VALUE ? now : waitStart;
        long waited = now - started;
        if (waited >= maxWaitNanos) {
            Throwable failure = lastFailure;
            throw new IdUnavailableException(IdUnavailableException.Reason.SEGMENT_PENDING, "segment '" + name
                    + "' of namespace '" + namespace + "' used up its ranges to " + link.last + " and the store ("
                    + store.describe() + ") did not answer the next reservation within the wait bound of "
                    + Duration.ofNanos(maxWaitNanos).toMillis() + " ms"
                    + (failure == null ? "" : "; last failure: " + failure.getMessage()));
        }
        clock.park(Math.min(PARK_NANOS, maxWaitNanos - waited));
        return started;
    }

    private IdUnavailableException closed() {
        String reason = stopReason;
        return new IdUnavailableException(IdUnavailableException.Reason.CLOSED, reason != null
                ? "segment '" + name + "' of namespace '" + namespace + "' stopped for good: " + reason
                : "segment '" + name + "' of namespace '" + namespace + "' is closed");
    }

    /** Schedules one fetch unless one is scheduled or running. */
    private void requestFetch() {
        if (!fetchScheduled.get() && fetchScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(Duration.ZERO, this::fetch);
            } catch (RuntimeException closing) {
                // the runtime closed its scheduler under a caller that drew an id just before: nothing to fetch
                fetchScheduled.set(false);
            }
        }
    }

    /**
     * Reserves one range when fewer ids than one step are left ahead; runs on the scheduler, one at a
     * time. A store that fails is retried with back-off (100 ms doubling to 1 s); one that lost its
     * data stops the generator for good.
     */
    private void fetch() {
        long retryNanos = 0;
        boolean capped = false;
        synchronized (lock) {
            if (state != State.RUNNING) {
                return;
            }
            try {
                resize();
                // a few ranges a task, so the keeper's steps on the same scheduler are not held up long
                for (int made = 0; unreserved() > 0 && idsAhead() < distance; made++) {
                    if (made == RANGES_PER_FETCH) {
                        capped = true;
                        break;
                    }
                    SegmentRange range = store.reserveSegment(namespace, name, unreserved());
                    String misfit = misfit(range);
                    if (misfit != null) {
                        stop(misfit, null);
                        return;
                    }
                    SegmentLink link = new SegmentLink(range, 0);
                    tail.next = link;
                    tail = link;
                    reservedIds += range.size();
                    failures = 0;
                    lastFailure = null;
                    listener.onSegmentReserved(range);
                }
                arm();
            } catch (StoreDataLostException e) {
                stop("the store lost its data: " + e.getMessage(), e);
                return;
            } catch (RuntimeException e) {
                failures++;
                lastFailure = e;
                retryNanos = Math.min(BACKOFF_MAX_NANOS, BACKOFF_FIRST_NANOS << Math.min(failures - 1, 4));
                LOG.warn("segment '{}' of namespace '{}': reservation {} failed, retrying in {} ms: {}", name,
                        namespace, failures, retryNanos / 1_000_000, e.toString());
                listener.onSegmentFailed(name, e, failures);
            }
        }
        if (retryNanos > 0) {
            // fetchScheduled stays set: the retry is the one fetch in flight
            try {
                scheduler.schedule(Duration.ofNanos(retryNanos), this::fetch);
            } catch (RuntimeException closing) {
                fetchScheduled.set(false);
            }
            return;
        }
        fetchScheduled.set(false);
        // a caller that asked while this fetch ran was turned away by the flag: look again for it
        boolean more;
        synchronized (lock) {
            // a capped round goes on at once; a full one waits for the trigger at half the distance
            long low = capped ? distance - 1 : distance / 2;
            more = state == State.RUNNING && unreserved() > 0 && idsAhead() <= low;
        }
        if (more) {
            requestFetch();
        }
    }

    /** Returns what is wrong with a reserved range, or null: ranges must increase and stay below 2^62. */
    private String misfit(SegmentRange range) {
        if (!range.namespace().equals(namespace) || !range.name().equals(name) || range.last() >= CLOSED_JUMP
                || (tail != null && range.first() <= tail.last)) {
            return "the store answered the range " + range + " after " + (tail == null ? "none" : tail.range)
                    + "; the segment counter of " + namespace + "/" + name + " must increase and stay below 2^62";
        }
        return null;
    }

    /** Sizes the next range to the rate observed since the last fetch. */
    private void resize() {
        long now = clock.monotonicNanos();
        long issued = issued();
        long elapsed = now - measuredAtNanos;
        if (elapsed >= 1_000_000L) {
            double measured = (issued - measuredIssued) * 1e9 / elapsed;
            // follow a rise at once and a fall by halves, so a pause does not shrink a busy counter's ranges
            rate = measured >= rate ? measured : (rate + measured) / 2;
            measuredAtNanos = now;
            measuredIssued = issued;
        }
        double wanted = rate * prefetchSeconds;
        if (starved) {
            // callers waited: the rate seen was held down by the store, so at least double the range
            starved = false;
            wanted = Math.max(wanted, step * 2.0);
        }
        step = (long) Math.max(policy.minStep(), Math.min(policy.maxStep(), Math.ceil(wanted)));
        // ranges smaller than the prefetch time (a fixed or capped step) are kept several ahead
        distance = (long) Math.max(step, Math.min(SegmentPolicy.STEP_MAX, Math.ceil(wanted)));
    }

    /**
     * Sets the trigger of the draw after which half the distance is left. Call under the lock. A trigger
     * that the callers pass before it is set is missed; the move onto the last range asks instead.
     */
    private void arm() {
        SegmentLink link = current;
        if (link == closedLink) {
            return;
        }
        long skip = idsAhead() - distance / 2;
        if (skip <= 0) {
            return;
        }
        long drawn = Math.min(link.cursor(), link.last + 1);
        if (skip <= link.last - drawn) {
            link.trigger = drawn + skip;
            return;
        }
        skip -= link.last - drawn + 1;
        for (SegmentLink next = link.next; next != null; next = next.next) {
            if (skip < next.size()) {
                next.trigger = next.first + skip;
                return;
            }
            skip -= next.size();
        }
    }

    /** The size of the next range: the step, or what the limit leaves; 0 when the limit is reached. */
    private long unreserved() {
        return policy.limit() == 0 ? step : Math.min(step, policy.limit() - reservedIds);
    }

    /** The ids left in the current link and every link reserved after it; exact when no caller is drawing. */
    private long idsAhead() {
        if (current == closedLink) {
            return Long.MAX_VALUE;
        }
        return reservedIds - issued();
    }

    /** About how many ids were issued: exact when no caller is drawing. */
    long issued() {
        SegmentLink link = current;
        if (link == closedLink) {
            return issuedInPastLinks.get();
        }
        return issuedInPastLinks.get() + Math.min(link.cursor(), link.last + 1) - link.first;
    }

    /** Returns the size the next range will have. */
    long step() {
        synchronized (lock) {
            return step;
        }
    }

    /** Stops for good: every later call throws, nothing is handed back. Call under the lock. */
    private void stop(String reason, Throwable cause) {
        state = State.STOPPED;
        stopReason = reason;
        SegmentLink last = (SegmentLink) CURRENT.getAndSet(this, closedLink);
        last.draw(CLOSED_JUMP);
        LOG.error("segment '{}' of namespace '{}' stopped for good: {}", name, namespace, reason, cause);
    }

    /**
     * Closes the generator and hands unused ranges back, newest first, while the counter still ends at
     * each. Idempotent.
     *
     * @return the last id issued, or 0 when none
     */
    long close() {
        synchronized (lock) {
            if (state != State.RUNNING) {
                return 0;
            }
            state = State.CLOSED;
            SegmentLink last = (SegmentLink) CURRENT.getAndSet(this, closedLink);
            long drawn = flaw == Flaw.CLOSE_WITHOUT_JUMP ? last.cursor() : last.draw(CLOSED_JUMP);
            long lastIssued = Math.min(drawn, last.last + 1) - 1;
            issuedInPastLinks.addAndGet(lastIssued - last.first + 1);
            Deque<SegmentLink> unused = new ArrayDeque<>();
            for (SegmentLink next = last.next; next != null; next = next.next) {
                if (flaw == Flaw.GIVE_BACK_OLDEST_FIRST) {
                    unused.addLast(next);
                } else {
                    unused.push(next);
                }
            }
            for (SegmentLink link : unused) {
                if (!giveBack(link.range, link.first - 1)) {
                    return lastIssued;
                }
            }
            giveBack(last.range, lastIssued);
            return lastIssued;
        }
    }

    /** Hands a tail back once; an answer that does not come is never retried, it may have applied. */
    private boolean giveBack(SegmentRange range, long lastIssued) {
        try {
            if (store.returnSegmentTail(range, lastIssued)) {
                return true;
            }
            LOG.info("segment '{}' of namespace '{}': ids {}..{} stay unused, a later range was reserved after them",
                    name, namespace, lastIssued + 1, range.last());
        } catch (RuntimeException e) {
            LOG.warn("segment '{}' of namespace '{}': ids {}..{} stay unused, handing them back failed: {}",
                    name, namespace, lastIssued + 1, range.last(), e.toString());
        }
        return false;
    }

    @Override
    public String toString() {
        return "FlawedSegmentChain[" + namespace + "/" + name + ", " + current.range + "]";
    }
}
