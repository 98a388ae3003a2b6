package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotChoice;
import dev.cosid.lease.SlotChooser;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.lease.StoreDataLostException;
import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one runtime's slot lease: acquires it, renews it every {@code ttl/3}, retries failures with
 * back-off, and on loss stops the generators at once and binds a new slot.
 *
 * <p>A lease found gone is told apart from one the store forgot. Normally a later holder has the
 * slot with a higher fence and a floor at or past this holder's ceiling. A missing namespace or slot
 * record, a lower fence, or a floor below that ceiling means the store lost or rolled back its data:
 * the keeper then acquires only with the cold-start guard, so its next window starts past every
 * window the forgotten records may have handed out. A store that refuses to go on
 * ({@link StoreDataLostException}, such as a deleted SQLite file) stops the runtime for good.
 *
 * <p>Every step runs on the {@link Scheduler} seam and catches and reports everything, so a failing
 * store or listener never stops the keeper. Renewal delays are measured by the scheduler on monotonic
 * time; a wall clock that jumps neither stops nor floods renewals.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * // created by CosIdRuntime.builder()...start(); tests drive it with a ManualScheduler:
 * scheduler.runNext(); // the next renewal, now
 * }</pre>
 */
public final class LeaseKeeper extends SlotKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    /** The longest pause between two reads while every slot is held: a freed slot is noticed this soon. */
    private static final long POLL_MAX_MILLIS = 250;
    /** Rounds of read-then-try before a crowd of racing runtimes counts as a failed attempt. */
    private static final int RACE_ROUNDS = 8;

    private final LeaseStore store;
    private final String namespace;
    private final Owner owner;
    private final NamespaceRecord registered;
    private final int limit;
    private final OptionalInt preferredSlot;
    private final Clock clock;
    private final CosIdListener listener;
    private final Duration renewInterval;
    private final Duration maxBackoff;
    private final Duration pollInterval;
    /** The terms of every store call; guarded for good once the store was found to have lost data. */
    private LeaseTerms terms;
    /** Set when the namespace record vanished: the next acquisition registers it again first. */
    private boolean registerAgain;
    private int failures;
    /** The store's clock reading of the last answer before the current run of failures; for the cut-off line. */
    private long cutOffSince;
    private volatile boolean warnedNoLayouts;

    LeaseKeeper(LeaseStore store, String namespace, Owner owner, LeaseTerms terms, NamespaceRecord registered,
                OptionalInt preferredSlot, Clock clock, Scheduler scheduler, CosIdListener listener) {
        super(scheduler, clock);
        this.store = store;
        this.namespace = namespace;
        this.owner = owner;
        this.terms = terms;
        this.registered = registered;
        this.limit = registered.limit();
        this.preferredSlot = preferredSlot;
        this.clock = clock;
        this.listener = listener;
        this.renewInterval = Duration.ofMillis(Math.max(1, terms.ttlMillis() / 3));
        this.maxBackoff = Duration.ofMillis(Math.max(1, terms.ttlMillis() / 6));
        this.pollInterval = Duration.ofMillis(Math.max(1, Math.min(POLL_MAX_MILLIS, terms.ttlMillis() / 30)));
    }

    /** Returns how long the keeper waits between two reads of an exhausted namespace. */
    Duration pollInterval() {
        return pollInterval;
    }

    /**
     * Acquires the first lease, reading the namespace again every poll interval while it is exhausted.
     *
     * @param acquireTimeout how long to keep trying an exhausted namespace
     * @throws SlotsExhaustedException when no slot came free in time
     */
    @Override
    void start(Duration acquireTimeout) {
        long started = clock.monotonicNanos();
        for (;;) {
            Attempt attempt = tryAcquire();
            if (attempt.lease.isPresent()) {
                synchronized (lock) {
                    lastAcquireMillis = (clock.monotonicNanos() - started) / 1_000_000;
                    bind(attempt.lease.get());
                    LOG.info("acquired {} in {} ms", attempt.lease.get(), lastAcquireMillis);
                    listener.onSlotAcquired(attempt.lease.get(), Duration.ofMillis(lastAcquireMillis));
                    schedule(renewInterval);
                }
                return;
            }
            long remaining = acquireTimeout.toNanos() - (clock.monotonicNanos() - started);
            if (remaining <= 0) {
                throw new SlotsExhaustedException("namespace '" + namespace + "' has no free slot among its " + limit
                        + " slots after " + acquireTimeout.toMillis() + " ms; the earliest lease expires at "
                        + attempt.earliestExpiry + " (store clock, ms)", attempt.earliestExpiry);
            }
            // a slot may be released long before the earliest expiry: look again soon
            long untilExpiry = Math.max(1, attempt.earliestExpiry - attempt.storeNow) * 1_000_000L;
            clock.park(Math.min(remaining, Math.min(untilExpiry, pollInterval.toNanos())));
        }
    }

    /** Runs one keeper step: renew, or re-acquire after a loss. Scheduled; public for simulation. */
    @Override
    void step() {
        synchronized (lock) {
            if (stopped() || binding.state == Binding.State.FAILED) {
                return;
            }
            try {
                if (binding.state == Binding.State.LOST) {
                    rebind();
                } else {
                    renew();
                }
            } catch (StoreDataLostException e) {
                fail(e.getMessage(), e);
            } catch (RuntimeException e) {
                failures++;
                renewalFailures++;
                Duration wait = backoff();
                logFailure(e, wait);
                listener.onRenewalFailed(e, failures);
                schedule(wait);
            }
        }
    }

    /**
     * A store that fails is expected: one warning line for the first failure of a run, the retries at
     * debug. Anything else is a bug somewhere and gets its stack trace.
     */
    private void logFailure(RuntimeException e, Duration wait) {
        String doing = binding.state == Binding.State.LOST ? "acquiring a slot of namespace '" + namespace + "'"
                : "renewing slot " + binding.lease.slot() + " of namespace '" + namespace + "'";
        if (!(e instanceof LeaseStoreException)) {
            LOG.error("{} failed unexpectedly (attempt {}); retrying in {} ms", doing, failures, wait.toMillis(), e);
        } else if (failures == 1) {
            cutOffSince = clock.nowMillis();
            String stops = binding.state == Binding.State.BOUND
                    ? "issuing stops at the last confirmed ceiling " + java.time.Instant.ofEpochMilli(binding.lease.ceiling())
                    : "no slot is held, so nothing is issued";
            LOG.warn("cut off from {} since {}: {} failed: {}; {}; retrying with back-off up to {} ms, further "
                    + "failures at debug", store.describe(), java.time.Instant.ofEpochMilli(cutOffSince), doing,
                    e.getMessage(), stops,
                    maxBackoff.toMillis());
        } else {
            LOG.debug("{} failed again (attempt {}): {}; retrying in {} ms", doing, failures, e.getMessage(),
                    wait.toMillis());
        }
    }

    private void renew() {
        SlotLease current = binding.lease;
        Optional<SlotLease> renewed = store.renew(current, terms);
        if (renewed.isPresent()) {
            SlotLease next = renewed.get();
            if (next.fence() != current.fence() || next.floor() != current.floor() || next.ceiling() < current.ceiling()) {
                lose(current, "the store answered the renewal of slot " + current.slot() + " with fence " + next.fence()
                        + " and window (" + next.floor() + ", " + next.ceiling() + "], not the fence "
                        + current.fence() + " and window (" + current.floor() + ", " + current.ceiling()
                        + "] it granted: its record was replaced or rolled back");
                return;
            }
            if (failures > 0) {
                LOG.info("{} answers again: renewed slot {} of namespace '{}' after {} failed attempts ({} ms cut off)",
                        store.describe(), current.slot(), namespace, failures, clock.nowMillis() - cutOffSince);
            }
            failures = 0;
            renewals++;
            bind(next);
            listener.onRenewed(next);
            schedule(renewInterval);
            return;
        }
        // stop issuing before anything else, then find out whether the store forgot the lease
        binding = new Binding(current, Binding.State.LOST);
        String forgotten;
        try {
            forgotten = forgotten(current);
        } catch (StoreDataLostException e) {
            throw e;
        } catch (RuntimeException e) {
            forgotten = "the store could not be read to tell a takeover from lost data (" + e.getMessage() + ")";
        }
        lose(current, forgotten);
    }

    /**
     * Returns why the store must have lost the data of a lease it no longer renews, or null when a later
     * holder took the slot the normal way: a higher fence and a floor at or past this holder's ceiling.
     */
    private String forgotten(SlotLease lease) {
        Optional<NamespaceRecord> stored = store.namespace(namespace);
        if (stored.isEmpty()) {
            registerAgain = true;
            return "the store no longer holds namespace '" + namespace + "': its data vanished or was reset";
        }
        if (!stored.get().equals(registered)) {
            return "namespace '" + namespace + "' now holds " + stored.get() + ", not the " + registered
                    + " this runtime registered: its record was replaced";
        }
        SlotRecord record = store.read(namespace).bySlot().get(lease.slot());
        if (record == null) {
            return "the store no longer holds the record of slot " + lease.slot() + ": its data vanished or was reset";
        }
        if (record.fence() <= lease.fence()) {
            return "the record of slot " + lease.slot() + " holds fence " + record.fence() + " for "
                    + (record.owner() == null ? "no owner" : record.owner().key()) + ", not a fence past "
                    + lease.fence() + ": it was replaced or rolled back";
        }
        if (record.floor() < lease.ceiling()) {
            return "slot " + lease.slot() + " was handed on at floor " + record.floor() + ", below this holder's ceiling "
                    + lease.ceiling() + ": the store forgot this window";
        }
        return null;
    }

    /** Marks the lease lost (generators already refuse) and schedules a new acquisition. */
    private void lose(SlotLease current, String forgotten) {
        binding = new Binding(current, Binding.State.LOST, forgotten);
        leasesLost++;
        if (forgotten == null) {
            LOG.warn("lost the lease: {}; its generators refuse ids until a new slot is bound", current);
        } else {
            // the records this store creates from now on start past every window it may have forgotten
            terms = terms.guarded();
            LOG.error("lost the lease {}: {}; the next slot is acquired with the cold-start guard", current,
                    forgotten);
        }
        listener.onSlotLost(current);
        schedule(Duration.ZERO);
    }

    /** Stops the runtime for good: generators refuse with the reason until it is closed. */
    private void fail(String reason, RuntimeException cause) {
        SlotLease current = binding.lease;
        if (binding.state == Binding.State.BOUND) {
            leasesLost++;
        }
        binding = new Binding(current, Binding.State.FAILED, reason);
        LOG.error("the runtime of namespace '{}' stopped for good: {}", namespace, reason);
        LOG.debug("the runtime stopped", cause);
        listener.onRenewalFailed(cause, ++failures);
    }

    private void rebind() {
        long started = clock.monotonicNanos();
        if (registerAgain) {
            NamespaceRecord stored = store.register(namespace, registered);
            if (!stored.equals(registered)) {
                fail("namespace '" + namespace + "' was registered again with " + stored + ", not the " + registered
                        + " this runtime uses", new NamespaceMismatchException("namespace record changed"));
                return;
            }
            registerAgain = false;
        }
        Attempt attempt = tryAcquire();
        if (attempt.lease.isPresent()) {
            LOG.info("acquired {} after the loss", attempt.lease.get());
            failures = 0;
            lastAcquireMillis = (clock.monotonicNanos() - started) / 1_000_000;
            bind(attempt.lease.get());
            listener.onSlotAcquired(attempt.lease.get(), Duration.ofMillis(lastAcquireMillis));
            schedule(renewInterval);
        } else {
            failures++;
            renewalFailures++;
            long untilExpiry = Math.max(1, attempt.earliestExpiry - attempt.storeNow);
            schedule(Duration.ofMillis(Math.min(untilExpiry, pollInterval.toMillis())));
        }
    }

    private Attempt tryAcquire() {
        for (int round = 0; round < RACE_ROUNDS; round++) {
            SlotTable table = store.read(namespace);
            checkSkew(table.storeNow());
            SlotChoice choice = SlotChooser.choose(table, owner, limit, preferredSlot);
            for (int slot : choice.duplicateOwnerSlots()) {
                listener.onDuplicateOwnerKey(owner.key(), slot);
            }
            if (choice instanceof SlotChoice.Exhausted) {
                long earliest = ((SlotChoice.Exhausted) choice).earliestExpiry();
                listener.onExhausted(earliest);
                return new Attempt(Optional.empty(), earliest, table.storeNow());
            }
            List<SlotChoice.Candidate> candidates = ((SlotChoice.Candidates) choice).candidates();
            for (int i = 0; i < candidates.size(); i++) {
                SlotChoice.Candidate candidate = candidates.get(i);
                Optional<SlotLease> lease = candidate.reason() == SlotChoice.Reason.HELD
                        ? store.renew(candidate.current().toLease(namespace, table.storeNow()), terms)
                        : store.acquire(namespace, candidate.slot(), owner, terms);
                if (lease.isPresent()) {
                    return new Attempt(lease, 0, 0);
                }
                if (candidate.reason() == SlotChoice.Reason.FREE) {
                    // a lost race on the lowest free slot means a crowd is starting: spread out over the free
                    // slots instead of all trying the next one (which turns a start-up storm quadratic)
                    candidates = spread(candidates, i + 1);
                }
            }
        }
        throw new LeaseStoreException("lost every race for a slot of namespace '" + namespace + "' in " + RACE_ROUNDS
                + " rounds of reads");
    }

    /** Rotates the free candidates after {@code from} to start at a place this owner's key picks. */
    private List<SlotChoice.Candidate> spread(List<SlotChoice.Candidate> candidates, int from) {
        int end = from;
        while (end < candidates.size() && candidates.get(end).reason() == SlotChoice.Reason.FREE) {
            end++; // expired slots stay behind the free ones
        }
        int remaining = end - from;
        if (remaining <= 1) {
            return candidates;
        }
        int shift = Math.floorMod(owner.key().hashCode() * 31 + from, remaining);
        List<SlotChoice.Candidate> spread = new ArrayList<>(candidates.subList(0, from));
        spread.addAll(candidates.subList(from + shift, end));
        spread.addAll(candidates.subList(from, from + shift));
        spread.addAll(candidates.subList(end, candidates.size()));
        return spread;
    }

    private void bind(SlotLease lease) {
        if (lease.takenOver() && terms.takeoverGuard()) {
            LOG.info("slot {} of namespace '{}' was taken over from a holder that did not release it; the takeover "
                    + "guard starts the window at {}, {} ms past the store's now", lease.slot(), namespace,
                    lease.floor(), lease.floor() - lease.storeNow());
        }
        binding = new Binding(lease, Binding.State.BOUND);
        checkSkew(lease.storeNow());
    }

    private void checkSkew(long storeNow) {
        long skew = clock.nowMillis() - storeNow;
        clockSkewMillis = skew;
        if (Math.abs(skew) > terms.toleranceMillis() / 2) {
            listener.onClockSkew(skew);
        }
    }

    private Duration backoff() {
        int doublings = Math.min(failures - 1, 20);
        Duration wait = FIRST_BACKOFF.multipliedBy(1L << Math.max(0, doublings));
        return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
    }

    /**
     * Records the layout of an id space in the store. A store that keeps no layouts (a third-party one)
     * gets a warning once; the stores CosId ships all keep them.
     */
    @Override
    LayoutRecord registerLayout(String name, LayoutRecord proposed) {
        try {
            return store.registerLayout(namespace, name, proposed);
        } catch (UnsupportedOperationException e) {
            if (!warnedNoLayouts) {
                warnedNoLayouts = true;
                LOG.warn("{} keeps no layouts of id spaces: give each generator name of namespace '{}' one layout "
                        + "for good, or ids can repeat", store.describe(), namespace);
            }
            return proposed;
        }
    }

    @Override
    void giveBack(SlotLease lease, long lastIssuedMillis) {
        if (failures > 0) {
            // the store did not answer the last call: a release would only wait for it again, and holds the close
            // up; the lease expires on its own, which is as safe (the next holder starts past its ceiling)
            LOG.info("not releasing {}: the last call to {} failed; the slot frees up at its expiry", lease,
                    store.describe());
            return;
        }
        if (lastIssuedMillis > lease.ceiling()) {
            // the record stepped back below ids this holder issued (a failover lost renewals); a release would
            // hand on a floor below them, while an expiry makes the next holder a takeover, which the takeover
            // guard starts past them
            LOG.warn("not releasing {}: it issued up to {}, past the ceiling its record holds now; the slot frees "
                    + "up at its expiry", lease, lastIssuedMillis);
            return;
        }
        try {
            if (!store.release(lease, lastIssuedMillis)) {
                LOG.info("the lease was already gone at release: {}", lease);
            }
        } catch (LeaseStoreException e) {
            LOG.warn("cannot release {}: {}; the slot frees up at its expiry", lease, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("cannot release {}; the slot frees up at its expiry", lease, e);
        }
    }

    private static final class Attempt {
        final Optional<SlotLease> lease;
        final long earliestExpiry;
        final long storeNow;

        Attempt(Optional<SlotLease> lease, long earliestExpiry, long storeNow) {
            this.lease = lease;
            this.earliestExpiry = earliestExpiry;
            this.storeNow = storeNow;
        }
    }
}
