package dev.cosid.coordination;

import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The election loop of one member for one role: it campaigns, waits its rank, holds and renews the role,
 * runs the member's {@link LeaderWork} while it leads, and stops that work when the leadership ends.
 *
 * <p>It follows {@link LeaseTiming} exactly. A holder renews at {@link LeaseTiming#renewAtMillis()} and
 * retries a failed renewal every retry interval. A standby of rank {@code r} challenges at
 * {@link LeaseTiming#challengeAtMillis(int) deadline + r * stagger}, or, with no lease, at its own
 * registration instant plus {@code r * stagger}; it never challenges a live lease, so a recovered member
 * that registers again waits behind the one that replaced it (no fail-back). A member that gave the role up on
 * purpose ({@link #resign()}, or its work returned) does not challenge for a retry interval plus one stagger,
 * so a standby takes the role instead of the member that just gave it up.
 *
 * <p>Two promises, as {@code docs/leadership.md} explains. <b>Fenced work</b> (records written inside the
 * role's Kafka transactions, rows written through the JDBC fence) never lands after a successor's, whatever
 * the clocks and pauses do: the epoch decides. <b>Unfenced work</b> is only stopped in time: when no renewal
 * has succeeded by {@code deadline - revokeMargin}, by this member's clock, the elector interrupts the work
 * and reports {@link Revocation.Reason#RENEWALS_FAILING}, even while a renewal still waits on the cluster
 * (the stop runs on the timer thread, the cluster calls on a thread of their own). The margin must cover
 * the clock skew between members; a process frozen past its deadline stops nothing in time.
 *
 * <p>Time and waiting go through the {@link Clock} and {@link Scheduler} seams, and cluster calls through
 * an {@link Executor}, so a test drives the elector step by step with a {@code ManualClock}, a
 * {@code ManualScheduler} and a direct executor, and the simulation runs it on virtual time.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (Elector elector = Elector.builder(transport, Role.of("billing"), MemberId.of("node-1"))
 *         .work(leadership -> runBillingUntilInterrupted(leadership.token()))
 *         .listener(listener)
 *         .start()) {
 *     awaitShutdown();
 * } // resigns, so a standby takes over at once, and leaves the roster
 * }</pre>
 */
public final class Elector implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Elector.class);
    private static final AtomicInteger WORK_THREADS = new AtomicInteger();

    /** The elector's lifecycle. */
    public enum State {
        /** Built, not started. */
        NEW,
        /** Registered or registering, waiting its turn or challenging. */
        CAMPAIGNING,
        /** Holding the role: the work runs. */
        LEADING,
        /** Closed: resigned and left the roster. */
        CLOSED
    }

    private final CoordinationTransport transport;
    private final CoordinationClient client;
    private final Role role;
    private final MemberId member;
    private final LeaseConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final Executor calls;
    private final ExecutorService ownedCalls;
    private final long retryMillis;
    private final long revokeMarginMillis;
    private final ElectionListener listener;
    private final LeaderWork work;
    private final ThreadFactory workThreads;
    private final boolean leaveOnClose;

    private State state = State.NEW;
    private Leadership leadership;
    /** Moves on with every leadership won and every end of one, so that a late answer about an old one is ignored. */
    private long generation;
    private Scheduler.Cancellable stepTask;
    private Scheduler.Cancellable revokeTask;
    private Thread workThread;
    /** A revoked leadership whose lease is still to be given back at the next step. */
    private Leadership toRelease;
    /** Whether that leadership was given up on purpose (resigned, or the work ended): then the standbys go first. */
    private boolean yieldAfterRelease;
    /** Until when, by this member's clock, it does not challenge after giving the role up on purpose. */
    private long yieldUntilMillis = Long.MIN_VALUE;
    private Optional<MemberId> leaderSeen = Optional.empty();
    private boolean leaderReported;
    private long waitingSaid = Long.MIN_VALUE;
    private int rankSaid = -1;
    private volatile Thread callThread;

    private Elector(Builder builder) {
        this.transport = builder.transport;
        this.role = builder.role;
        this.member = builder.member;
        this.config = builder.config;
        this.clock = builder.clock;
        this.retryMillis = builder.retryInterval.toMillis();
        this.revokeMarginMillis = builder.revokeMargin != null ? builder.revokeMargin.toMillis()
                : defaultRevokeMargin(config).toMillis();
        this.listener = builder.listener;
        this.work = builder.work;
        this.workThreads = builder.workThreads != null ? builder.workThreads : runnable -> {
            Thread thread = new Thread(runnable, "cosid-leader-" + role + "-" + WORK_THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        this.leaveOnClose = builder.leaveOnClose;
        this.client = new CoordinationClient(transport, config, clock, builder.retryInterval);
        this.ownsScheduler = builder.scheduler == null;
        this.scheduler = ownsScheduler ? Scheduler.newSingleThread("cosid-elector-" + role) : builder.scheduler;
        if (builder.calls == null) {
            this.ownedCalls = Executors.newSingleThreadExecutor(runnable -> {
                Thread thread = new Thread(runnable, "cosid-elector-calls-" + role);
                thread.setDaemon(true);
                return thread;
            });
            this.calls = ownedCalls;
        } else {
            this.ownedCalls = null;
            this.calls = builder.calls;
        }
    }

    /**
     * Returns the default margin before the deadline at which the work stops when renewals fail: a tenth of
     * the lease, and at most half of what the lease has left at its renewal instant.
     *
     * @param config the lease policy
     * @return the margin, at least 1 ms
     */
    public static Duration defaultRevokeMargin(LeaseConfig config) {
        long duration = config.duration().toMillis();
        long afterRenewal = duration - config.renewInterval().toMillis();
        return Duration.ofMillis(Math.max(1, Math.min(duration / 10, afterRenewal / 2)));
    }

    /**
     * Checks a revoke margin against a lease policy: the work must stop after the last renewal instant could
     * have succeeded and before the deadline.
     *
     * @param config the lease policy
     * @param revokeMargin the margin
     * @return the margin
     * @throws CoordinationException naming the margin and the room when it is shorter than 1 ms or not shorter
     *     than the lease duration minus the renew interval
     */
    public static Duration checkRevokeMargin(LeaseConfig config, Duration revokeMargin) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(revokeMargin, "revokeMargin");
        long margin = revokeMargin.toMillis();
        long room = config.duration().toMillis() - config.renewInterval().toMillis();
        if (margin < 1 || margin >= room) {
            throw new CoordinationException("the revoke margin of " + margin + " ms is not between 1 ms and "
                    + "the lease duration minus the renew interval (" + room + " ms)");
        }
        return revokeMargin;
    }

    /**
     * Starts building an elector.
     *
     * @param transport the cluster seam; the elector does not close it
     * @param role the role to campaign for
     * @param member this member
     * @return a builder with the defaults: {@link LeaseConfig#DEFAULT}, the system clock, threads of its own,
     *     a 1 s retry interval, {@link #defaultRevokeMargin}, no work and no listener
     */
    public static Builder builder(CoordinationTransport transport, Role role, MemberId member) {
        return new Builder(transport, role, member);
    }

    /** Returns the role. */
    public Role role() {
        return role;
    }

    /** Returns this member. */
    public MemberId member() {
        return member;
    }

    /** Returns the lease policy. */
    public LeaseConfig config() {
        return config;
    }

    /** Returns how long before the deadline the work stops when renewals fail. */
    public Duration revokeMargin() {
        return Duration.ofMillis(revokeMarginMillis);
    }

    /** Returns the lifecycle state. */
    public synchronized State state() {
        return state;
    }

    /** Returns the live leadership while this member leads. */
    public synchronized Optional<Leadership> leadership() {
        return Optional.ofNullable(leadership);
    }

    /** Reports whether this member leads now, as far as it knows. */
    public synchronized boolean leading() {
        return leadership != null;
    }

    /** Returns the holder of the role as this member last saw it. */
    public synchronized Optional<MemberId> leader() {
        return leaderSeen;
    }

    /**
     * Starts campaigning.
     *
     * @return this elector
     * @throws IllegalStateException when started before or closed
     */
    public Elector start() {
        synchronized (this) {
            if (state != State.NEW) {
                throw new IllegalStateException("the elector of " + member + " for role '" + role + "' is " + state
                        + ", not NEW");
            }
            state = State.CAMPAIGNING;
        }
        scheduleStep(0);
        return this;
    }

    /** Schedules the next step: a timer on the scheduler hands it to the call executor. */
    private synchronized void scheduleStep(long delayMillis) {
        if (state == State.CLOSED) {
            return;
        }
        if (stepTask != null) {
            stepTask.cancel();
        }
        stepTask = scheduler.schedule(Duration.ofMillis(Math.max(0, delayMillis)), () -> calls.execute(this::step));
    }

    private void scheduleStepAt(long atMillis) {
        scheduleStep(atMillis - clock.nowMillis());
    }

    private void step() {
        callThread = Thread.currentThread();
        Leadership held;
        long heldGeneration;
        Leadership release;
        boolean yielding;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            held = leadership;
            heldGeneration = generation;
            release = toRelease;
            toRelease = null;
            yielding = yieldAfterRelease;
            yieldAfterRelease = false;
        }
        if (release != null) {
            giveBack(release);
            if (yielding) {
                // with no lease a member that ranks first would challenge at once and take the role straight back;
                // every standby looks at the role at least once a retry interval, so it goes first
                yieldUntilMillis = Saturating.add(clock.nowMillis(),
                        Saturating.add(retryMillis, config.challengeStagger().toMillis()));
            }
        }
        try {
            if (held != null) {
                hold(held, heldGeneration);
            } else {
                campaign();
            }
        } catch (RuntimeException unexpected) {
            // a keeper that is hard to break: report, and try again after the retry interval
            LOG.error("the elector of {} for role '{}' failed unexpectedly; it tries again in {} ms", member, role,
                    retryMillis, unexpected);
            scheduleStep(retryMillis);
        }
    }

    /** Clears a revoked leadership's lease if the cluster answers, so that a standby need not wait for its deadline. */
    private void giveBack(Leadership release) {
        try {
            release.close();
        } catch (CoordinationException e) {
            LOG.debug("could not give back role '{}' after a revocation: {}", role, e.getMessage());
        }
    }

    private void hold(Leadership held, long heldGeneration) {
        long now = clock.nowMillis();
        long revokeAt = revokeAt(held.lease());
        if (now >= revokeAt) {
            revoke(heldGeneration, Revocation.Reason.RENEWALS_FAILING, "no renewal succeeded by "
                    + java.time.Instant.ofEpochMilli(revokeAt) + ", " + revokeMarginMillis + " ms before the deadline",
                    null);
            scheduleStep(0);
            return;
        }
        if (!held.timing().renewDueAt(now)) {
            scheduleStepAt(held.timing().renewAtMillis());
            return;
        }
        Lease renewed;
        try {
            renewed = held.renew();
        } catch (FencedException e) {
            revoke(heldGeneration, Revocation.Reason.FENCED, "a newer epoch exists: " + e.getMessage(), e);
            scheduleStep(0);
            return;
        } catch (CoordinationException e) {
            long revokeAtNow = revokeAt(held.lease());
            notify(() -> listener.renewalFailed(held, e, revokeAtNow));
            scheduleStepAt(Math.min(clock.nowMillis() + retryMillis, revokeAtNow));
            return;
        }
        synchronized (this) {
            if (heldGeneration != generation) {
                // revoked while the renewal waited on the cluster: the work has stopped; give the role back
                toRelease = held;
                scheduleStep(0);
                return;
            }
            armRevocation(heldGeneration, renewed);
        }
        notify(() -> listener.renewed(held, renewed));
        scheduleStepAt(held.timing().renewAtMillis());
    }

    private long revokeAt(Lease lease) {
        return lease.deadline() - revokeMarginMillis;
    }

    /** Sets the timer that stops the work at the lease's deadline minus the margin unless a renewal comes first. */
    private void armRevocation(long heldGeneration, Lease lease) {
        if (revokeTask != null) {
            revokeTask.cancel();
        }
        long revokeAt = revokeAt(lease);
        revokeTask = scheduler.schedule(Duration.ofMillis(Math.max(0, revokeAt - clock.nowMillis())), () -> {
            revoke(heldGeneration, Revocation.Reason.RENEWALS_FAILING, "no renewal succeeded by "
                    + java.time.Instant.ofEpochMilli(revokeAt) + ", " + revokeMarginMillis
                    + " ms before the deadline", null);
            scheduleStep(0);
        });
    }

    /** Ends one leadership: the work is interrupted first, then the listener hears of it. */
    private void revoke(long heldGeneration, Revocation.Reason reason, String detail, Throwable cause) {
        Leadership ended;
        long at;
        synchronized (this) {
            if (heldGeneration != generation || leadership == null) {
                return; // that leadership has ended already
            }
            ended = leadership;
            leadership = null;
            generation++;
            if (revokeTask != null) {
                revokeTask.cancel();
                revokeTask = null;
            }
            ended.revoke(detail);
            if (workThread != null) {
                workThread.interrupt();
                workThread = null;
            }
            if (state != State.CLOSED) {
                state = State.CAMPAIGNING;
            }
            if (reason != Revocation.Reason.FENCED && state != State.CLOSED) {
                toRelease = ended;
                yieldAfterRelease = reason == Revocation.Reason.RESIGNED || reason == Revocation.Reason.WORK_ENDED;
            }
            at = clock.nowMillis();
        }
        Revocation revocation = new Revocation(ended, reason, detail, Optional.ofNullable(cause), at);
        notify(() -> listener.revoked(revocation));
        seeLeader(Optional.empty());
    }

    private void campaign() {
        try {
            long now = clock.nowMillis();
            RoleState roleState = client.state(role);
            seeLeader(liveHolder(roleState, now));
            Decision decision = Succession.evaluate(roleState, member, now, config);
            if (decision.action() == Decision.Action.NOT_REGISTERED) {
                transport.register(role, member, clock.nowMillis());
                notify(() -> listener.registered(role, member));
                roleState = client.state(role);
                now = clock.nowMillis();
                decision = Succession.evaluate(roleState, member, now, config);
            }
            if ((decision.action() == Decision.Action.CHALLENGE || decision.action() == Decision.Action.HOLD)
                    && now < yieldUntilMillis) {
                decision = new Decision(Decision.Action.WAIT, yieldUntilMillis, decision.rank());
            }
            if (decision.action() == Decision.Action.WAIT || decision.action() == Decision.Action.NOT_REGISTERED) {
                long until = decision.atMillis();
                int rank = decision.rank().orElse(-1);
                if (until != waitingSaid || rank != rankSaid) {
                    waitingSaid = until;
                    rankSaid = rank;
                    notify(() -> listener.waiting(role, until, rank));
                }
                scheduleStepAt(Math.min(until, clock.nowMillis() + retryMillis));
                return;
            }
            // CHALLENGE, or HOLD: a lease names this member but this elector holds no handle (a restart)
            int rank = decision.rank().orElse(0);
            notify(() -> listener.challenged(role, rank));
            waitingSaid = Long.MIN_VALUE;
            FencingToken token = transport.acquireEpoch(role);
            Lease written;
            try {
                written = transport.writeLease(role, token, config.grant(member, token, clock.nowMillis()));
            } catch (FencedException lost) {
                scheduleStep(retryMillis); // another member minted after us and won the race
                return;
            }
            elected(new Leadership(transport, config, clock, role, token, written));
        } catch (CoordinationException e) {
            notify(() -> listener.campaignFailed(role, e));
            scheduleStep(retryMillis);
        }
    }

    private static Optional<MemberId> liveHolder(RoleState roleState, long now) {
        return roleState.lease().filter(lease -> lease.deadline() > now).map(Lease::member);
    }

    private void elected(Leadership won) {
        long wonGeneration;
        synchronized (this) {
            if (state == State.CLOSED) {
                toRelease = null;
                giveBack(won);
                return;
            }
            generation++;
            wonGeneration = generation;
            leadership = won;
            state = State.LEADING;
            armRevocation(wonGeneration, won.lease());
        }
        notify(() -> listener.elected(won));
        seeLeader(Optional.of(member));
        if (work != null) {
            startWork(won, wonGeneration);
        }
        scheduleStepAt(won.timing().renewAtMillis());
    }

    private void startWork(Leadership won, long wonGeneration) {
        Thread thread = workThreads.newThread(() -> {
            Throwable failure = null;
            try {
                work.lead(won);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable e) {
                failure = e;
            }
            workEnded(wonGeneration, failure);
        });
        synchronized (this) {
            if (wonGeneration != generation) {
                return; // revoked before the work could start
            }
            workThread = thread;
        }
        thread.start();
    }

    private void workEnded(long wonGeneration, Throwable failure) {
        synchronized (this) {
            if (wonGeneration != generation) {
                return; // the work ended because the leadership did
            }
            workThread = null;
        }
        if (failure != null) {
            LOG.warn("the work of {} for role '{}' failed; giving the role up", member, role, failure);
        }
        revoke(wonGeneration, Revocation.Reason.WORK_ENDED, failure == null ? "the work returned"
                : "the work failed: " + failure, failure);
        scheduleStep(0);
    }

    /**
     * Gives the role up now, if held, and campaigns again: the lease is cleared and this member does not challenge
     * for a retry interval plus one stagger, in which every standby looks at the role, so a standby takes over
     * without waiting for the deadline; with none, this member takes the role again after that wait.
     */
    public void resign() {
        long heldGeneration;
        synchronized (this) {
            if (leadership == null) {
                return;
            }
            heldGeneration = generation;
        }
        revoke(heldGeneration, Revocation.Reason.RESIGNED, "resigned", null);
        scheduleStep(0);
    }

    private void seeLeader(Optional<MemberId> leader) {
        synchronized (this) {
            if (leaderReported && leader.equals(leaderSeen)) {
                return;
            }
            leaderReported = true;
            leaderSeen = leader;
        }
        notify(() -> listener.leaderChanged(role, leader));
    }

    private void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("a listener of the elector for role '{}' threw; the elector goes on", role, e);
        }
    }

    /**
     * Stops the work (interrupts it and waits for it to end, at most the revoke margin), resigns the role if
     * held and leaves the roster (unless built with {@code leaveOnClose(false)}), then stops the elector's
     * threads. Waits for the cluster calls at most the transport's own bounds. Idempotent.
     */
    @Override
    public void close() {
        Leadership held;
        long heldGeneration;
        Thread work;
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            boolean started = state != State.NEW;
            held = leadership;
            heldGeneration = generation;
            work = workThread;
            if (stepTask != null) {
                stepTask.cancel();
            }
            if (!started) {
                state = State.CLOSED;
                shutDownThreads();
                return;
            }
        }
        if (held != null) {
            revoke(heldGeneration, Revocation.Reason.RESIGNED, "the elector was closed", null);
            awaitWork(work);
        }
        Leadership release;
        synchronized (this) {
            state = State.CLOSED;
            release = toRelease;
            toRelease = null;
            if (stepTask != null) {
                stepTask.cancel();
            }
        }
        Runnable last = () -> {
            if (release != null) {
                giveBack(release);
            }
            if (leaveOnClose) {
                try {
                    client.leave(role, member);
                } catch (CoordinationException e) {
                    LOG.debug("could not leave the roster of role '{}': {}", role, e.getMessage());
                }
            }
        };
        if (Thread.currentThread() == callThread || ownedCalls == null) {
            last.run();
        } else {
            try {
                CompletableFuture.runAsync(last, calls).get(Math.max(1, 2 * config.duration().toMillis()),
                        TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("the elector of role '{}' did not finish leaving: {}", role, e.toString());
            }
        }
        synchronized (this) {
            shutDownThreads();
        }
    }

    /**
     * Waits for interrupted work to end, at most the revoke margin, so that the role is given back only once
     * the work has stopped: a successor that takes over at once never runs beside it.
     */
    private void awaitWork(Thread work) {
        if (work == null || work == Thread.currentThread()) {
            return;
        }
        try {
            work.join(Math.max(1, revokeMarginMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (work.isAlive()) {
            LOG.warn("the work of {} for role '{}' did not stop within {} ms of its interrupt; giving the role back "
                    + "anyway", member, role, revokeMarginMillis);
        }
    }

    private void shutDownThreads() {
        if (ownsScheduler) {
            scheduler.close();
        }
        if (ownedCalls != null) {
            ownedCalls.shutdownNow();
        }
    }

    @Override
    public synchronized String toString() {
        return "Elector[" + member + " for role '" + role + "', " + state
                + (leadership != null ? ", token " + leadership.token() : "") + "]";
    }

    /**
     * Builds an {@link Elector}.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * Elector elector = Elector.builder(transport, role, me)
     *         .config(LeaseConfig.of(Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(1)))
     *         .listener(listener)
     *         .start();
     * }</pre>
     */
    public static final class Builder {
        private final CoordinationTransport transport;
        private final Role role;
        private final MemberId member;
        private LeaseConfig config = LeaseConfig.DEFAULT;
        private Clock clock = Clock.system();
        private Scheduler scheduler;
        private Executor calls;
        private Duration retryInterval = Duration.ofSeconds(1);
        private Duration revokeMargin;
        private ElectionListener listener = ElectionListener.NONE;
        private LeaderWork work;
        private ThreadFactory workThreads;
        private boolean leaveOnClose = true;

        private Builder(CoordinationTransport transport, Role role, MemberId member) {
            this.transport = Objects.requireNonNull(transport, "transport");
            this.role = Objects.requireNonNull(role, "role");
            this.member = Objects.requireNonNull(member, "member");
        }

        /**
         * Sets the lease policy; every member of the role uses the same.
         *
         * @param config the policy
         * @return this builder
         */
        public Builder config(LeaseConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * Sets the clock that grants leases and decides when to renew, challenge and stop.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets the scheduler of the elector's timers; the elector then does not close it. By default the
         * elector has a thread of its own.
         *
         * @param scheduler the scheduler
         * @return this builder
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Sets where the cluster calls run; {@code Runnable::run} runs them on the scheduler's thread, as a
         * deterministic test does. By default the elector has a thread of its own for them, so that a call
         * waiting on the cluster never delays the timer that stops the work.
         *
         * @param calls the executor
         * @return this builder
         */
        public Builder callExecutor(Executor calls) {
            this.calls = Objects.requireNonNull(calls, "calls");
            return this;
        }

        /**
         * Sets how long the elector waits before it tries a failed call again, and how often a standby looks
         * at the role to report a new leader (it challenges at its own instant regardless).
         *
         * @param retryInterval at least 1 ms
         * @return this builder
         * @throws CoordinationException when shorter than 1 ms
         */
        public Builder retryInterval(Duration retryInterval) {
            Objects.requireNonNull(retryInterval, "retryInterval");
            if (retryInterval.compareTo(Duration.ofMillis(1)) < 0) {
                throw new CoordinationException("the retry interval of " + retryInterval.toMillis()
                        + " ms is not at least 1 ms");
            }
            this.retryInterval = retryInterval;
            return this;
        }

        /**
         * Sets how long before the lease's deadline the work stops when no renewal succeeded: at least the
         * clock skew between members, since a standby whose clock runs ahead challenges that much early.
         *
         * @param revokeMargin at least 1 ms, and shorter than the lease minus the renew interval
         * @return this builder
         * @throws CoordinationException when out of range for the lease policy ({@link #build()} checks again)
         */
        public Builder revokeMargin(Duration revokeMargin) {
            this.revokeMargin = Objects.requireNonNull(revokeMargin, "revokeMargin");
            return this;
        }

        /**
         * Sets the listener.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(ElectionListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Sets the work to run while leading, on a thread of its own, interrupted when the leadership ends.
         *
         * @param work the work
         * @return this builder
         */
        public Builder work(LeaderWork work) {
            this.work = Objects.requireNonNull(work, "work");
            return this;
        }

        /**
         * Sets the factory of the work's threads (daemon threads named {@code cosid-leader-ROLE-N} by default).
         *
         * @param workThreads the factory
         * @return this builder
         */
        public Builder workThreads(ThreadFactory workThreads) {
            this.workThreads = Objects.requireNonNull(workThreads, "workThreads");
            return this;
        }

        /**
         * Sets whether {@link Elector#close()} removes this member from the roster (the default) or leaves its
         * registration, keeping its place for a restart under the same member id.
         *
         * @param leaveOnClose whether to leave
         * @return this builder
         */
        public Builder leaveOnClose(boolean leaveOnClose) {
            this.leaveOnClose = leaveOnClose;
            return this;
        }

        /**
         * Builds the elector without starting it.
         *
         * @return the elector
         * @throws CoordinationException when the revoke margin does not fit the lease policy
         */
        public Elector build() {
            if (revokeMargin != null) {
                checkRevokeMargin(config, revokeMargin);
            }
            return new Elector(this);
        }

        /**
         * Builds and starts the elector.
         *
         * @return the running elector
         */
        public Elector start() {
            return build().start();
        }
    }
}
