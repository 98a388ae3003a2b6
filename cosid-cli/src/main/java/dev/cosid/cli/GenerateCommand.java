package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.Limits;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
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

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions storeOptions;

    @CommandLine.ArgGroup(exclusive = true)
    Amount amount;

    static final class Amount {
        @Option(names = "--count", paramLabel = "N", description = "how many ids to print (default 1)")
        Long count;

        @Option(names = "--duration", paramLabel = "D", converter = Durations.class,
                description = "keep issuing for this long, e.g. 60s; keeps trying while no slot is held")
        Duration duration;
    }

    @Option(names = "--rate", paramLabel = "IDS_PER_SECOND", description = "at most this many ids a second")
    Long rate;

    @Option(names = "--layout", paramLabel = "NAME", defaultValue = "MILLISECOND",
            description = "MILLISECOND, SECOND, SAFE_JS_MILLISECOND or SAFE_JS_SECOND (default: ${DEFAULT-VALUE})")
    String layoutName;

    @Option(names = "--owner-key", paramLabel = "KEY", description = "this instance's identity (default host:pid)")
    String ownerKey;

    @Option(names = "--ttl", paramLabel = "D", converter = Durations.class, defaultValue = "30s",
            description = "lease time to live (default: ${DEFAULT-VALUE})")
    Duration ttl;

    @Option(names = "--tolerance", paramLabel = "D", converter = Durations.class, defaultValue = "1s",
            description = "how far past expiry a holder may issue; fixed per namespace (default: ${DEFAULT-VALUE})")
    Duration tolerance;

    @Option(names = "--static-slot", paramLabel = "N",
            description = "use this slot, unique by deployment, with no store (cosid.machine.static.slot)")
    Integer staticSlot;

    @Option(names = "--state-file", paramLabel = "PATH",
            description = "where a static slot keeps its ceiling across restarts (required with --static-slot)")
    java.nio.file.Path stateFile;

    @Option(names = "--ahead", paramLabel = "D", converter = Durations.class, defaultValue = "10s",
            description = "how far ahead a static slot's ceiling is written (default: ${DEFAULT-VALUE})")
    Duration ahead;

    @Option(names = "--not-before", paramLabel = "INSTANT",
            description = "a static slot's floor while its state file does not exist, e.g. 2026-12-01T00:00:00Z")
    java.time.Instant notBefore;

    @Option(names = "--allow-future-not-before",
            description = "accept a --not-before more than a day past the clock (no id is issued before it)")
    boolean allowFutureNotBefore;

    @Option(names = "--cold-start-guard",
            description = "a slot record created where none existed starts past now + ttl + tolerance, so a store "
                    + "that lost its data never hands out a window an earlier holder may still use; costs one wait of "
                    + "ttl + tolerance per newly created slot record (docs/stores.md)")
    boolean coldStartGuard;

    @Option(names = "--bits", paramLabel = "N", defaultValue = "10",
            description = "slot bits of the namespace, at most the layout's (default: ${DEFAULT-VALUE})")
    int bits;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        IdLayout layout = IdLayout.preset(layoutName);
        layout.requireSlotBits(bits);
        if (rate != null && rate < 1) {
            throw new IllegalArgumentException("rate " + rate + " is less than 1 id a second");
        }
        long count = amount == null || amount.count == null ? (amount == null || amount.duration == null ? 1 : -1)
                : amount.count;
        if (amount != null && amount.count != null && count < 0) {
            throw new IllegalArgumentException("count " + count + " is negative");
        }
        Clock clock = Clock.system();
        long started = clock.monotonicNanos();
        long endNanos = amount != null && amount.duration != null ? started + amount.duration.toNanos() : Long.MAX_VALUE;

        CosIdRuntime.Builder builder = CosIdRuntime.builder()
                .namespace(storeOptions.namespace())
                .ttl(ttl)
                .tolerance(tolerance)
                .bits(bits)
                .listener(new StderrListener(err));
        if (ownerKey != null) {
            builder.ownerKey(ownerKey);
        }
        if (staticSlot != null) {
            if (stateFile == null) {
                throw new IllegalArgumentException("--static-slot needs --state-file: without it a clock set back "
                        + "across a restart can repeat ids");
            }
            if (coldStartGuard) {
                throw new IllegalArgumentException("--cold-start-guard guards a store; a static slot has none");
            }
            builder.staticSlot(staticSlot).stateFile(stateFile).ahead(ahead).allowFutureNotBefore(allowFutureNotBefore);
            if (notBefore != null) {
                builder.notBefore(notBefore);
            }
        } else if (stateFile != null || notBefore != null || allowFutureNotBefore) {
            throw new IllegalArgumentException("--state-file, --not-before and --allow-future-not-before need "
                    + "--static-slot");
        } else {
            builder.store(storeOptions.store).coldStartGuard(coldStartGuard);
            if (coldStartGuard && ttl != null && tolerance != null) {
                // a new slot record's first id waits out ttl + tolerance once: let nextId wait that long
                Duration wait = ttl.plus(tolerance).plusSeconds(1);
                builder.maxWait(wait.compareTo(Limits.MAX_WAIT_MAX) > 0 ? Limits.MAX_WAIT_MAX : wait);
            }
        }
        CosIdRuntime runtime = start(builder, err, clock, endNanos);
        if (runtime == null) {
            return 0; // the duration ended while every slot was held
        }
        Thread closer = new Thread(runtime::close, "cosid-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        try (runtime) {
            SnowflakeId ids = runtime.snowflake("cli", layout);
            long printed = 0;
            long lastReport = 0;
            while ((count < 0 || printed < count) && clock.monotonicNanos() < endNanos) {
                if (rate != null) {
                    long due = started + printed * 1_000_000_000L / rate;
                    long ahead = due - clock.monotonicNanos();
                    if (ahead > 0) {
                        out.flush();
                        clock.park(Math.min(ahead, endNanos - clock.monotonicNanos()));
                        continue;
                    }
                }
                long id;
                try {
                    id = ids.nextId();
                } catch (IdUnavailableException e) {
                    if (count >= 0 && amount != null && amount.duration == null) {
                        throw e;
                    }
                    long now = clock.monotonicNanos();
                    if (now - lastReport > REPORT_EVERY_NANOS) {
                        err.println("cosid: waiting: " + e.getMessage());
                        lastReport = now;
                    }
                    continue;
                }
                out.print(id);
                out.print('\n');
                printed++;
            }
            out.flush();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(closer);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running and closes the runtime itself
            }
        }
        return 0;
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

    /** Prints lease events to stderr. */
    private static final class StderrListener implements CosIdListener {
        private final PrintWriter err;

        StderrListener(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void onSlotAcquired(SlotLease lease) {
            err.println("cosid: acquired " + lease);
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            err.println("cosid: renewal attempt " + attempt + " failed: " + cause.getMessage());
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            err.println("cosid: lost " + lease + "; acquiring another slot");
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
            err.println("cosid: every slot is held; the earliest lease expires at " + earliestExpiry);
        }
    }
}
