package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./cosid generate}: prints ids, one a line, as they are issued. */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Prints unique ids, one a line, as they are issued; lease events go to stderr.",
                "Two concurrent invocations on one store hold different slots."})
final class GenerateCommand implements Callable<Integer> {

    private static final long REPORT_EVERY_NANOS = 1_000_000_000L;
    /** The longest {@code --duration}: far beyond any run, and far below an overflow of the monotonic clock. */
    private static final Duration LONGEST_DURATION = Duration.ofDays(36_500);
    /** The most ids {@code --rate} lets through at once to make up for a late wake-up: 10 ms worth. */
    private static final long RATE_BURST_NANOS = 10_000_000L;
    /** How long a run past {@code --duration} may take to close before the process ends without it. */
    private static final long CLOSE_GRACE_NANOS = 1_500_000_000L;
    /** The longest one id may wait inside the generator in a {@code --duration} run, which waits on its own. */
    private static final Duration DURATION_ID_WAIT = Duration.ofMillis(200);
    /** The pause between two attempts to start while the store cannot be reached. */
    private static final long START_RETRY_NANOS = 500_000_000L;
    /** The pause before the next try while no id can be issued, so a run without its store does not spin. */
    private static final long UNAVAILABLE_PAUSE_NANOS = 10_000_000L;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions storeOptions;

    @CommandLine.ArgGroup(exclusive = true)
    Amount amount;

    static final class Amount {
        @Option(names = "--count", paramLabel = "N", description = "how many ids to print, at least 1 (default 1)")
        Long count;

        @Option(names = "--duration", paramLabel = "D", converter = Durations.class,
                description = "keep issuing for this long, e.g. 60s; keeps trying while no slot is held or the store "
                        + "does not answer, ends within 2 s of it, and says how long the store was unreachable")
        Duration duration;
    }

    @Option(names = "--rate", paramLabel = "IDS_PER_SECOND", description = "at most this many ids a second")
    Long rate;

    @Mixin
    RuntimeOptions runtimeOptions;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Output out = ((CosIdCommand) spec.root().userObject()).output;
        IdLayout layout = runtimeOptions.layout();
        if (rate != null && rate < 1) {
            throw new IllegalArgumentException("rate " + rate + " is less than 1 id a second");
        }
        if (amount != null && amount.count != null && amount.count < 1) {
            throw new IllegalArgumentException("count " + amount.count + " is less than 1");
        }
        runtimeOptions.refuseConflicts(spec.commandLine().getParseResult());
        long count = amount == null || amount.count == null ? (amount == null || amount.duration == null ? 1 : -1)
                : amount.count;
        Clock clock = Clock.system();
        long started = clock.monotonicNanos();
        if (amount != null && amount.duration != null && amount.duration.compareTo(LONGEST_DURATION) > 0) {
            throw new IllegalArgumentException("--duration " + amount.duration + " is longer than "
                    + LONGEST_DURATION.toDays() + " days");
        }
        long endNanos = amount != null && amount.duration != null ? started + amount.duration.toNanos() : Long.MAX_VALUE;

        Outage outage = new Outage(clock);
        StderrListener listener = new StderrListener(err, outage);
        CosIdRuntime.Builder builder = runtimeOptions.builder(storeOptions, listener);
        if (endNanos != Long.MAX_VALUE) {
            // this loop waits and tries again itself: an id that waits inside the generator (a guarded start, a
            // ceiling no renewal raises) must not hold the run past its duration and its close past the grace
            builder.maxWait(DURATION_ID_WAIT);
        }
        storeOptions.notices().forEach(line -> err.println("cosid: " + line));
        java.util.concurrent.atomic.AtomicLong printedSoFar = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        if (endNanos != Long.MAX_VALUE && CosIdCommand.standalone) {
            // a store call that hangs (a frozen server, a commit that waits for a cut-off standby) must not hold
            // the run past its duration: past a grace the process ends without waiting for the call
            Thread deadline = new Thread(() -> {
                long remaining;
                while ((remaining = endNanos + CLOSE_GRACE_NANOS - clock.monotonicNanos()) > 0) {
                    clock.park(remaining);
                }
                if (!done.compareAndSet(false, true)) {
                    return; // the run closed in time
                }
                out.seal();
                outage.endedWithoutAnswer();
                err.println("cosid: " + outage.summary(printedSoFar.get()) + "; the store did not answer in time to "
                        + "close, so the lease expires on its own");
                err.flush();
                Runtime.getRuntime().halt(printedSoFar.get() > 0 || !outage.ever() ? 0 : 1);
            }, "cosid-deadline");
            deadline.setDaemon(true);
            deadline.start();
        }
        CosIdRuntime runtime = start(builder, err, clock, endNanos, outage);
        if (runtime == null) {
            done.set(true);
            if (outage.ever()) {
                err.println("cosid: " + outage.summary(0));
                return 1; // the store never answered: nothing was done
            }
            return 0; // the duration ended while every slot was held
        }
        Thread closer = new Thread(runtime::close, "cosid-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        try (runtime) {
            SnowflakeId ids = runtime.snowflake("cli", layout);
            Pace pace = rate == null ? null : new Pace(rate, clock.monotonicNanos());
            long printed = 0;
            long lastReport = 0;
            boolean waiting = false;
            while ((count < 0 || printed < count) && clock.monotonicNanos() < endNanos && !CosIdCommand.stopping) {
                if (pace != null) {
                    long wait = pace.waitNanos(clock.monotonicNanos());
                    if (wait > 0) {
                        out.flush(); // whole lines reach a reader while this run waits
                        clock.park(Math.min(wait, endNanos - clock.monotonicNanos()));
                        continue;
                    }
                }
                long id;
                try {
                    id = ids.nextId();
                } catch (IdUnavailableException e) {
                    if (CosIdCommand.stopping) {
                        break;
                    }
                    if (count >= 0 && amount != null && amount.duration == null
                            || e.reason() == IdUnavailableException.Reason.CLOSED) {
                        throw e; // a runtime stopped for good (its store's data vanished) never comes back
                    }
                    long now = clock.monotonicNanos();
                    if (!waiting && now - lastReport > REPORT_EVERY_NANOS) {
                        // once per stretch without ids: a store cut off for a minute is one line, not sixty
                        err.println("cosid: waiting: " + e.getMessage());
                        lastReport = now;
                        waiting = true;
                    }
                    out.flush();
                    clock.park(Math.min(UNAVAILABLE_PAUSE_NANOS, Math.max(0, endNanos - now)));
                    continue;
                }
                waiting = false;
                out.write(id + "\n");
                printed++;
                printedSoFar.set(printed);
                if (pace != null) {
                    pace.issued();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // the output failed: CosIdCommand reports it in one line
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(closer);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running and closes the runtime itself
            }
        }
        if (!done.compareAndSet(false, true)) {
            clock.park(Long.MAX_VALUE); // the deadline ends the process as this run closed too late
        }
        if (outage.ever()) {
            err.println("cosid: " + outage.summary(printedSoFar.get()));
        }
        return 0;
    }

    /**
     * Paces ids to a rate. A run that falls behind (waiting for a slot, a pause) forgets the debt
     * beyond {@link #RATE_BURST_NANOS} instead of making it up in a burst, so no second holds more
     * than the rate plus 1 %.
     */
    private static final class Pace {
        private final double nanosPerId;
        private long base;
        private long sinceBase;

        Pace(long rate, long now) {
            this.nanosPerId = 1e9 / rate;
            this.base = now;
        }

        /** How long to wait before the next id may be issued; 0 when it may be issued now. */
        long waitNanos(long now) {
            long due = base + (long) (sinceBase * nanosPerId);
            if (now - due > RATE_BURST_NANOS) {
                base = now - RATE_BURST_NANOS;
                sinceBase = 0;
                due = base;
            }
            return Math.max(0, due - now);
        }

        void issued() {
            sinceBase++;
        }
    }

    private CosIdRuntime start(CosIdRuntime.Builder builder, PrintWriter err, Clock clock, long endNanos,
                               Outage outage) {
        if (endNanos == Long.MAX_VALUE) {
            return builder.start();
        }
        for (;;) {
            try {
                CosIdRuntime runtime = builder.acquireTimeout(
                        Duration.ofNanos(Math.max(0, endNanos - clock.monotonicNanos()))).start();
                if (outage.ended()) {
                    err.println("cosid: the store answers again");
                }
                return runtime;
            } catch (SlotsExhaustedException e) {
                if (clock.monotonicNanos() >= endNanos) {
                    err.println("cosid: " + e.getMessage());
                    return null;
                }
                err.println("cosid: waiting: " + e.getMessage());
            } catch (LeaseStoreException e) {
                // --duration asks to keep trying: a store that cannot be reached yet may answer later
                if (outage.began()) {
                    err.println("cosid: waiting: " + e.getMessage() + "; trying again until the end of --duration");
                }
                long remaining = endNanos - clock.monotonicNanos();
                if (remaining <= 0) {
                    return null;
                }
                clock.park(Math.min(remaining, START_RETRY_NANOS));
            }
        }
    }

    /**
     * How long the store could not be reached: from a failure (or the start, until the first answer) to the next
     * answer, summed. Only a run that saw a failure, or ended before the store ever answered, reports it.
     */
    static final class Outage {
        private final Clock clock;
        private final long startNanos;
        /** Since when the store has not answered; -1 while it answers. Starts at the run's start. */
        private long since;
        private long totalNanos;
        private boolean ever;
        private boolean reported;

        Outage(Clock clock) {
            this.clock = clock;
            this.startNanos = clock.monotonicNanos();
            this.since = startNanos;
        }

        /** Records a failure; returns whether it is the first of an outage, the one to report. */
        synchronized boolean began() {
            ever = true;
            if (since < 0) {
                since = clock.monotonicNanos();
            }
            boolean first = !reported;
            reported = true;
            return first;
        }

        /** Records an answer; returns whether it ends an outage that was reported. */
        synchronized boolean ended() {
            if (since >= 0 && ever) {
                totalNanos += clock.monotonicNanos() - since;
            }
            since = -1;
            boolean was = reported;
            reported = false;
            return was;
        }

        /** Counts a store that has not answered by the end, even without a failure (a call still waiting). */
        synchronized void endedWithoutAnswer() {
            if (since >= 0) {
                ever = true;
            }
        }

        synchronized boolean ever() {
            return ever;
        }

        /** One line: the ids issued, the run's length and how long of it the store could not be reached. */
        synchronized String summary(long issued) {
            long now = clock.monotonicNanos();
            long unreachable = totalNanos + (since >= 0 ? now - since : 0);
            return "issued " + issued + " ids in " + seconds(now - startNanos) + "; the store was unreachable for "
                    + seconds(unreachable) + (since >= 0 ? ", until the end" : "");
        }

        private static String seconds(long nanos) {
            return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
        }
    }

    /** Prints lease events to stderr, each instant in milliseconds and ISO-8601. */
    static final class StderrListener implements CosIdListener {
        private final PrintWriter err;
        private final Outage outage;

        StderrListener(PrintWriter err) {
            this(err, null);
        }

        StderrListener(PrintWriter err, Outage outage) {
            this.err = err;
            this.outage = outage;
        }

        @Override
        public void onSlotAcquired(SlotLease lease) {
            answered();
            err.println("cosid: acquired " + Times.lease(lease));
        }

        @Override
        public void onRenewed(SlotLease lease) {
            answered();
        }

        private void answered() {
            if (outage != null && outage.ended()) {
                err.println("cosid: the store answers again");
            }
        }

        /** The first failure of an outage gets a line; the retries that follow stay quiet. */
        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            if (outage == null ? attempt == 1 : outage.began()) {
                err.println("cosid: renewal attempt " + attempt + " failed: " + cause.getMessage()
                        + "; retrying quietly, ids stop at the last confirmed ceiling");
            }
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            err.println("cosid: lost " + Times.lease(lease) + "; acquiring another slot");
        }

        @Override
        public void onClockSkew(long skewMillis) {
            err.println("cosid: the local clock differs from the store's by " + skewMillis + " ms");
        }

        @Override
        public void onDuplicateOwnerKey(String key, int slot) {
            err.println("cosid: owner key '" + key + "' already holds slot " + slot
                    + " under another incarnation; left alone");
        }

        @Override
        public void onExhausted(long earliestExpiry) {
            err.println("cosid: every slot is held; the earliest lease expires at " + Times.of(earliestExpiry));
        }

        @Override
        public void onSegmentFailed(String name, Throwable cause, int attempt) {
            err.println("cosid: reserving the next range of segment '" + name + "' failed (attempt " + attempt
                    + "): " + cause.getMessage());
        }
    }
}
