package dev.cosid.cli;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code ./cosid leases}: prints the slot table of a namespace. */
@Command(name = "leases", mixinStandardHelpOptions = true,
        description = {"Prints every slot record of a namespace: slot, owner, fence, expires in, floor, ceiling, next "
                + "floor.", "Instants are the store's milliseconds, then ISO-8601 in UTC."})
final class LeasesCommand implements Callable<Integer> {

    private static final String ROW = "%-5s %-40s %6s %-18s %-40s %-40s %s%n";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions storeOptions;

    @Override
    public Integer call() {
        String namespace = storeOptions.namespace();
        PrintWriter out = spec.commandLine().getOut();
        try (LeaseStore store = LeaseStores.open(storeOptions.store)) {
            NamespaceRecord record = store.namespace(namespace).orElseThrow(() -> new IllegalStateException(
                    "namespace '" + namespace + "' is not registered in " + store.describe()));
            SlotTable table = store.read(namespace);
            long now = table.storeNow();
            out.println("namespace '" + namespace + "' in " + store.describe() + ": " + record + ", store clock "
                    + Times.of(now));
            out.printf(Locale.ROOT, ROW, "SLOT", "OWNER", "FENCE", "EXPIRES IN", "FLOOR", "CEILING", "NEXT FLOOR");
            for (SlotRecord slot : table.slots()) {
                String owner = slot.owner() == null ? "(free, last " + slot.lastOwnerKey() + ")" : slot.owner().key();
                String expires = slot.owner() == null ? "-"
                        : slot.expiresAt() > now ? Durations.format(slot.expiresAt() - now)
                        : "expired " + Durations.format(now - slot.expiresAt()) + " ago";
                out.printf(Locale.ROOT, ROW, slot.slot(), owner, slot.fence(), expires, Times.of(slot.floor()),
                        Times.of(slot.ceiling()), Times.of(slot.nextFloor()));
            }
            out.flush();
        }
        return 0;
    }
}
