package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.SnowflakeId;
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
                description = "keep issuing for this long, e.g. 60s; keeps trying while no slot is held")
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

        CosIdRuntime.Builder builder = runtimeOptions.builder(storeOptions, new StderrListener(err));
        CosIdRuntime runtime = start(builder, err, clock, endNanos);
        if (runtime == null) {
            return 0; // the duration ended while every slot was held
        }
        Thread closer = new Thread(runtime::close, "cosid-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        try (runtime) {
            SnowflakeId ids = runtime.snowflake("cli", layout);
            Pace pace = rate == null ? null : new Pace(rate, clock.monotonicNanos());
            long printed = 0;
            long lastReport = 0;
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
                    if (now - lastReport > REPORT_EVERY_NANOS) {
                        err.println("cosid: waiting: " + e.getMessage());
                        lastReport = now;
                    }
                    continue;
                }
                out.write(id + "\n");
                printed++;
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

    private CosIdRuntime start(CosIdRuntime.Builder builder, PrintWriter err, Clock clock, long endNanos) {
        if (endNanos == Long.MAX_VALUE) {
            return builder.start();
        }
        for (;;) {
            try {
                return builder.acquireTimeout(Duration.ofNanos(Math.max(0, endNanos - clock.monotonicNanos()))).start();
            } catch (SlotsExhaustedException e) {
                if (clock.monotonicNanos() >= endNanos) {
                    err.println("cosid: " + e.getMessage());
                    return null;
                }
                err.println("cosid: waiting: " + e.getMessage());
            }
        }
    }

    /** Prints lease events to stderr, each instant in milliseconds and ISO-8601. */
    static final class StderrListener implements CosIdListener {
        private final PrintWriter err;

        StderrListener(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void onSlotAcquired(SlotLease lease) {
            err.println("cosid: acquired " + Times.lease(lease));
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            err.println("cosid: renewal attempt " + attempt + " failed: " + cause.getMessage());
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
