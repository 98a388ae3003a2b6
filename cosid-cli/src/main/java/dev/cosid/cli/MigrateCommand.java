package dev.cosid.cli;

import dev.cosid.NamespaceMismatchException;
import dev.cosid.StateFile;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid migrate}: computes a safe not-before from a CosId 2.x/3.x deployment and writes it
 * into a static slot's state file or as the next floor of every slot of a namespace in a store.
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Computes a safe not-before from CosId 2.x/3.x machine state (the largest last timestamp "
                + "plus the old safe guard) and writes it as the floor of a static slot's state file or of every "
                + "slot of a namespace in a store. Stop every old instance first."})
final class MigrateCommand implements Callable<Integer> {

    private static final String MIGRATOR = "cosid-migrate";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--from-file", paramLabel = "PATH",
            description = "a machine-state file or directory (~/.cosid-machine-state) holding machineId|lastTimeStamp")
    List<Path> fromFiles = new ArrayList<>();

    @Option(names = "--from-jdbc", paramLabel = "JDBC_URL", description = "a database holding the table cosid_machine")
    List<String> fromJdbc = new ArrayList<>();

    @Option(names = "--from-redis", paramLabel = "REDIS_URL", description = "a Redis holding cosid:{ns}:itc_idx hashes")
    List<String> fromRedis = new ArrayList<>();

    @Option(names = "--legacy-namespace", paramLabel = "NS",
            description = "read only this CosId namespace from --from-jdbc and --from-redis (default: all)")
    String legacyNamespace;

    @Option(names = "--safe-guard", paramLabel = "D", converter = Durations.class, defaultValue = "5m",
            description = "the old safe-guard duration added to the largest last timestamp (default: ${DEFAULT-VALUE})")
    Duration safeGuard;

    @Option(names = "--not-before", paramLabel = "INSTANT",
            description = "an operator's bound, e.g. 2026-12-01T00:00:00Z; the later of it and the computed one wins")
    Instant notBefore;

    @Option(names = "--to-state-file", paramLabel = "PATH", description = "write a static slot's state file")
    Path toStateFile;

    @Option(names = "--slot", paramLabel = "N", description = "the static slot of --to-state-file")
    Integer slot;

    @Option(names = "--to-store", paramLabel = "URL", description = "raise the next floor of every slot in a store")
    String toStore;

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = CosIdCommand.DEFAULT_NAMESPACE,
            description = "the new namespace (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(names = "--bits", paramLabel = "N", defaultValue = "10",
            description = "slot bits of the namespace in --to-store (default: ${DEFAULT-VALUE})")
    int bits;

    @Option(names = "--tolerance", paramLabel = "D", converter = Durations.class, defaultValue = "1s",
            description = "tolerance of the namespace in --to-store (default: ${DEFAULT-VALUE})")
    Duration tolerance;

    @Option(names = "--dry-run", description = "print what would be written, write nothing")
    boolean dryRun;

    @Override
    public Integer call() {
        Namespaces.require(namespace);
        if ((toStateFile == null) == (toStore == null)) {
            throw new IllegalArgumentException("name one target: --to-state-file PATH --slot N, or --to-store URL");
        }
        if (toStateFile != null && slot == null) {
            throw new IllegalArgumentException("--to-state-file needs --slot N");
        }
        PrintWriter out = spec.commandLine().getOut();
        List<LegacyMachineStates.MachineState> states = new ArrayList<>();
        fromFiles.forEach(path -> states.addAll(LegacyMachineStates.fromFiles(path)));
        fromJdbc.forEach(url -> states.addAll(LegacyMachineStates.fromJdbc(url, legacyNamespace)));
        fromRedis.forEach(url -> states.addAll(LegacyMachineStates.fromRedis(url, legacyNamespace)));
        long bound = bound(states, out);
        if (toStateFile != null) {
            writeStateFile(bound, out);
        } else {
            writeStore(bound, out);
        }
        out.flush();
        return 0;
    }

    private long bound(List<LegacyMachineStates.MachineState> states, PrintWriter out) {
        if (states.isEmpty() && notBefore == null) {
            throw new IllegalArgumentException("no machine state was read and no --not-before given: name a source "
                    + "(--from-file, --from-jdbc, --from-redis) or a bound");
        }
        for (LegacyMachineStates.MachineState state : states) {
            out.println("read " + state.source() + ": machine " + state.machineId() + ", last timestamp "
                    + Instant.ofEpochMilli(state.lastTimestampMillis()));
        }
        long bound = notBefore == null ? 0 : notBefore.toEpochMilli();
        if (!states.isEmpty()) {
            long largest = states.stream().mapToLong(LegacyMachineStates.MachineState::lastTimestampMillis).max()
                    .orElseThrow();
            long computed = largest + safeGuard.toMillis();
            out.println("largest last timestamp " + Instant.ofEpochMilli(largest) + " + safe guard " + safeGuard
                    + " = " + Instant.ofEpochMilli(computed));
            bound = Math.max(bound, computed);
        }
        out.println("not-before " + Instant.ofEpochMilli(bound) + " (" + bound + " ms)");
        return bound;
    }

    private void writeStateFile(long bound, PrintWriter out) {
        Optional<StateFile.State> existing = StateFile.read(toStateFile);
        if (existing.isPresent() && (!existing.get().namespace().equals(namespace) || existing.get().slot() != slot)) {
            throw new IllegalArgumentException("the state file " + toStateFile + " belongs to namespace '"
                    + existing.get().namespace() + "' slot " + existing.get().slot() + ", not '" + namespace
                    + "' slot " + slot);
        }
        long ceiling = Math.max(bound, existing.map(StateFile.State::ceiling).orElse(0L));
        String action = (dryRun ? "would write" : "wrote") + " ceiling " + ceiling + " (" + Instant.ofEpochMilli(ceiling)
                + ") to the state file " + toStateFile + " of namespace '" + namespace + "' slot " + slot;
        if (!dryRun) {
            StateFile.write(toStateFile, new StateFile.State(namespace, slot, ceiling));
        }
        out.println(action);
    }

    private void writeStore(long bound, PrintWriter out) {
        try (LeaseStore store = LeaseStores.open(toStore)) {
            NamespaceRecord proposed = new NamespaceRecord(1 << bits, tolerance.toMillis());
            NamespaceRecord stored = dryRun ? store.namespace(namespace).orElse(proposed)
                    : store.register(namespace, proposed);
            if (!stored.equals(proposed)) {
                throw new NamespaceMismatchException("namespace '" + namespace + "' holds " + stored
                        + "; the migration asks for " + proposed + " (bits " + bits + ")");
            }
            SlotTable table = dryRun && store.namespace(namespace).isEmpty()
                    ? new SlotTable(namespace, 0, List.of()) : store.read(namespace);
            Map<Integer, SlotRecord> records = table.bySlot();
            List<Integer> held = records.values().stream().filter(r -> !r.freeAt(table.storeNow()))
                    .map(SlotRecord::slot).collect(Collectors.toList());
            if (!held.isEmpty()) {
                throw new IllegalStateException("slots " + held + " of namespace '" + namespace + "' are held by live "
                        + "leases; stop every instance of the namespace before migrating");
            }
            int raised = 0;
            Owner migrator = Owner.of(MIGRATOR);
            for (int s = 0; s < stored.limit(); s++) {
                SlotRecord record = records.getOrDefault(s, SlotRecord.empty(s));
                if (record.nextFloor() >= bound) {
                    continue;
                }
                raised++;
                if (!dryRun) {
                    raise(store, s, migrator, bound, table.storeNow());
                }
            }
            out.println((dryRun ? "would raise" : "raised") + " the next floor of " + raised + " of " + stored.limit()
                    + " slots of namespace '" + namespace + "' in " + store.describe() + " to " + bound);
        }
    }

    /** Acquires the slot with a window that reaches the bound, then releases it at the bound. */
    private void raise(LeaseStore store, int s, Owner migrator, long bound, long storeNow) {
        long ttl = Math.max(1, bound - storeNow);
        SlotLease lease = store.acquire(namespace, s, migrator, new LeaseTerms(ttl, tolerance.toMillis()))
                .orElseThrow(() -> new IllegalStateException("slot " + s + " of namespace '" + namespace
                        + "' was taken during the migration; stop every instance and run it again"));
        if (!store.release(lease, bound)) {
            throw new IllegalStateException("slot " + s + " of namespace '" + namespace
                    + "' changed during the migration; run it again");
        }
    }
}
