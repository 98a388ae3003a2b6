package dev.cosid.cli;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import java.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of a runtime that issues Snowflake ids ({@code generate}, {@code serve}): the layout, the clock,
 * a static slot, and the lease options.
 */
final class RuntimeOptions {

    @Option(names = "--layout", paramLabel = "NAME", defaultValue = "MILLISECOND",
            description = "MILLISECOND, SECOND, SAFE_JS_MILLISECOND, SAFE_JS_SECOND or "
                    + "SAFE_JS_MILLISECOND_LEGACY_EPOCH (continues CosId 3.2.0 and earlier's safe-JS millisecond ids) "
                    + "(default: ${DEFAULT-VALUE})")
    String layoutName;

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

    @Option(names = "--max-lead", paramLabel = "D", converter = Durations.class, defaultValue = "0ms",
            description = "how far ahead of the clock a used-up millisecond may move on, inside the lease's window: "
                    + "bursts beyond 4,096 ids a millisecond go at once; 0 waits for the clock, at most 1m "
                    + "(default: ${DEFAULT-VALUE})")
    Duration maxLead;

    @Option(names = "--ticking-clock",
            description = "read the wall clock from one thread that refreshes it every millisecond (a memory read "
                    + "per id instead of a system call); timestamps lag the clock by about a millisecond")
    boolean tickingClock;

    @Mixin
    LeaseOptions lease;

    @Option(names = "--bits", paramLabel = "N",
            description = "slot bits of the namespace, at most the layout's (default: 10, or the layout's slot "
                    + "bits when fewer: 3 for the SAFE_JS layouts)")
    Integer bits;

    /** Returns the layout, checked against the slot bits. */
    IdLayout layout() {
        IdLayout layout = IdLayout.preset(layoutName);
        layout.requireSlotBits(slotBits(layout));
        return layout;
    }

    /** Returns the slot bits: as given, or 10 capped at the layout's slot bits. */
    int slotBits(IdLayout layout) {
        return bits != null ? bits : Math.min(10, layout.slotBits());
    }

    /** Refuses options that mean nothing together rather than silently ignoring one. */
    void refuseConflicts(CommandLine.ParseResult parsed) {
        if (staticSlot != null) {
            for (String option : new String[] {"--store", "--ttl", "--tolerance", "--cold-start-guard",
                    "--takeover-guard"}) {
                if (parsed.hasMatchedOption(option)) {
                    throw new IllegalArgumentException(option + " cannot be used with --static-slot, which uses no "
                            + "store: its window comes from --state-file");
                }
            }
        } else {
            for (String option : new String[] {"--state-file", "--not-before", "--ahead", "--allow-future-not-before"}) {
                if (parsed.hasMatchedOption(option)) {
                    throw new IllegalArgumentException(option + " needs --static-slot");
                }
            }
        }
    }

    /**
     * Returns a runtime builder with these options, the store's or the static slot's, checked before
     * any store call.
     */
    CosIdRuntime.Builder builder(StoreOptions storeOptions, CosIdListener listener) {
        int slotBits = slotBits(IdLayout.preset(layoutName));
        CosIdRuntime.Builder builder = lease.builder(storeOptions, slotBits, listener)
                .maxLead(maxLead)
                .tickingClock(tickingClock);
        if (staticSlot != null) {
            if (stateFile == null) {
                throw new IllegalArgumentException("--static-slot needs --state-file: without it a clock set back "
                        + "across a restart can repeat ids");
            }
            builder.staticSlot(staticSlot).stateFile(stateFile).ahead(ahead).allowFutureNotBefore(allowFutureNotBefore);
            if (notBefore != null) {
                builder.notBefore(notBefore);
            }
        } else {
            lease.store(builder, storeOptions);
        }
        return builder;
    }
}
