package dev.cosid.cli;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.SegmentId;
import dev.cosid.SegmentPolicy;
import dev.cosid.lease.Names;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./cosid segment NAME}: prints dense increasing ids of a named counter, one a line. */
@Command(name = "segment", mixinStandardHelpOptions = true,
        description = {"Prints dense, increasing ids of a named counter, one a line, from ranges reserved in the "
                + "store; lease events go to stderr.",
                "Concurrent runs on one store never print the same id; a run reserves exactly --count ids, and a run "
                + "stopped early hands its unused range back, so the next run continues at the last id + 1."})
final class SegmentCommand implements Callable<Integer> {

    /** Ids drawn at once: the output is buffered anyway, so a batch costs one atomic add. */
    private static final int BATCH = 4_096;
    /** How long a call waits for the store's next range before the run fails. */
    private static final Duration MAX_WAIT = Duration.ofSeconds(10);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "NAME",
            description = "the counter: 1 to 128 characters of A-Z a-z 0-9 . _ -, not . or .. (its ids are apart from "
                    + "every other counter's)")
    String name;

    @Option(names = "--count", paramLabel = "N", description = "how many ids to print, at least 1 (default 1)")
    long count = 1;

    @Mixin
    StoreOptions storeOptions;

    @Mixin
    LeaseOptions leaseOptions;

    @Option(names = "--bits", paramLabel = "N",
            description = "slot bits of the namespace, as its other runtimes have them (default: 10)")
    Integer bits;

    @Mixin
    NotForSegments notForSegments;

    /**
     * The options of {@code generate} and {@code serve} that segment ids cannot use: left out of the help, and
     * refused with the reason when given.
     */
    static final class NotForSegments {
        /** The options, in the order they are refused. */
        static final String[] NAMES = {"--static-slot", "--state-file", "--not-before", "--ahead",
                "--allow-future-not-before", "--layout", "--max-lead", "--ticking-clock"};

        @Option(names = "--static-slot", hidden = true)
        String staticSlot;
        @Option(names = "--state-file", hidden = true)
        String stateFile;
        @Option(names = "--not-before", hidden = true)
        String notBefore;
        @Option(names = "--ahead", hidden = true)
        String ahead;
        @Option(names = "--allow-future-not-before", hidden = true)
        boolean allowFutureNotBefore;
        @Option(names = "--layout", hidden = true)
        String layout;
        @Option(names = "--max-lead", hidden = true)
        String maxLead;
        @Option(names = "--ticking-clock", hidden = true)
        boolean tickingClock;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Output out = ((CosIdCommand) spec.root().userObject()).output;
        if (count < 1) {
            throw new IllegalArgumentException("count " + count + " is less than 1");
        }
        Names.require(name);
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        for (String option : NotForSegments.NAMES) {
            if (parsed.hasMatchedOption(option)) {
                throw new IllegalArgumentException(option + " cannot be used with segment: segment ids come from a "
                        + "counter in the store (--store), not from a clock");
            }
        }
        // the default is generate's with its default layout, so both commands share a namespace
        int slotBits = bits != null ? bits : Math.min(10, IdLayout.MILLISECOND.slotBits());
        CosIdRuntime.Builder builder = leaseOptions.builder(storeOptions, slotBits,
                new GenerateCommand.StderrListener(err));
        leaseOptions.store(builder, storeOptions);
        storeOptions.notices().forEach(line -> err.println("cosid: " + line));
        if (!leaseOptions.coldStartGuard && !leaseOptions.takeoverGuard) {
            builder.maxWait(MAX_WAIT);
        }
        CosIdRuntime runtime = builder.start();
        Thread closer = new Thread(runtime::close, "cosid-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        try (runtime) {
            SegmentId ids = runtime.segment(name, SegmentPolicy.DEFAULT.withLimit(count));
            StringBuilder lines = new StringBuilder(BATCH * 20);
            long printed = 0;
            while (printed < count && !CosIdCommand.stopping) {
                long[] batch;
                try {
                    batch = ids.nextIds((int) Math.min(BATCH, count - printed));
                } catch (IdUnavailableException e) {
                    if (CosIdCommand.stopping) {
                        break; // SIGTERM closed the runtime: what was printed stands, the rest went back
                    }
                    throw e;
                }
                lines.setLength(0);
                for (long id : batch) {
                    lines.append(id).append('\n');
                }
                out.write(lines.toString());
                printed += batch.length;
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
}
