package dev.cosid;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotChoice;
import dev.cosid.lease.SlotChooser;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
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
    /** Rounds of read-then-try before a crowd of racing runtimes counts as a failed attempt. */
    private static final int RACE_ROUNDS = 8;

    private final LeaseStore store;
    private final String namespace;
    private final Owner owner;
    private final LeaseTerms terms;
    private final int limit;
    private final OptionalInt preferredSlot;
    private final Clock clock;
    private final CosIdListener listener;
    private final Duration renewInterval;
    private final Duration maxBackoff;
    private int failures;

    LeaseKeeper(LeaseStore store, String namespace, Owner owner, LeaseTerms terms, int limit,
                OptionalInt preferredSlot, Clock clock, Scheduler scheduler, CosIdListener listener) {
        super(scheduler, clock);
        this.store = store;
        this.namespace = namespace;
        this.owner = owner;
        this.terms = terms;
        this.limit = limit;
        this.preferredSlot = preferredSlot;
        this.clock = clock;
        this.listener = listener;
        this.renewInterval = Duration.ofMillis(Math.max(1, terms.ttlMillis() / 3));
        this.maxBackoff = Duration.ofMillis(Math.max(1, terms.ttlMillis() / 6));
    }

    /**
     * Acquires the first lease, waiting for the earliest expiry while the namespace is exhausted.
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
            long untilExpiry = Math.max(1, attempt.earliestExpiry - attempt.storeNow) * 1_000_000L;
            clock.park(Math.min(remaining, Math.min(untilExpiry, maxBackoff.toNanos())));
        }
    }

    /** Runs one keeper step: renew, or re-acquire after a loss. Scheduled; public for simulation. */
    @Override
    void step() {
        synchronized (lock) {
            if (stopped()) {
                return;
            }
            try {
                if (binding.state == Binding.State.LOST) {
                    rebind();
                } else {
                    renew();
                }
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
            LOG.warn("{} failed: {}; retrying with back-off up to {} ms while the window lasts", doing, e.getMessage(),
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
            if (failures > 0) {
                LOG.info("renewed slot {} of namespace '{}' after {} failed attempts", current.slot(), namespace,
                        failures);
            }
            failures = 0;
            renewals++;
            bind(renewed.get());
            listener.onRenewed(renewed.get());
            schedule(renewInterval);
            return;
        }
        // the fence or the incarnation no longer match: stop issuing before anything else
        binding = new Binding(current, Binding.State.LOST);
        leasesLost++;
        LOG.warn("lost the lease: {}; its generators refuse ids until a new slot is bound", current);
        listener.onSlotLost(current);
        schedule(Duration.ZERO);
    }

    private void rebind() {
        long started = clock.monotonicNanos();
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
            Duration wait = backoff();
            schedule(wait.toMillis() < untilExpiry ? wait : Duration.ofMillis(untilExpiry));
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
        int remaining = candidates.size() - from;
        if (remaining <= 1) {
            return candidates;
        }
        int shift = Math.floorMod(owner.key().hashCode() * 31 + from, remaining);
        List<SlotChoice.Candidate> spread = new ArrayList<>(candidates.subList(0, from));
        spread.addAll(candidates.subList(from + shift, candidates.size()));
        spread.addAll(candidates.subList(from, from + shift));
        return spread;
    }

    private void bind(SlotLease lease) {
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

    @Override
    void giveBack(SlotLease lease, long lastIssuedMillis) {
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
