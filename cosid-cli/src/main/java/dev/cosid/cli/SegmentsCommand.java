package dev.cosid.cli;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code ./cosid segments}: prints the segment counters of a namespace. */
@Command(name = "segments", mixinStandardHelpOptions = true,
        description = {"Prints every segment counter of a namespace: its name and the last id reserved from it.",
                "The next run of `segment NAME` starts above that id."})
final class SegmentsCommand implements Callable<Integer> {

    private static final String ROW = "%-64s %s%n";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    StoreOptions storeOptions;

    @Override
    public Integer call() {
        String namespace = storeOptions.namespace();
        PrintWriter out = spec.commandLine().getOut();
        try (LeaseStore store = LeaseStores.open(storeOptions.store)) {
            SortedMap<String, Long> counters = store.segments(namespace);
            out.println("namespace '" + namespace + "' in " + store.describe() + ": " + counters.size()
                    + (counters.size() == 1 ? " segment counter" : " segment counters"));
            if (!counters.isEmpty()) {
                out.printf(Locale.ROOT, ROW, "NAME", "LAST RESERVED");
            }
            for (Map.Entry<String, Long> counter : counters.entrySet()) {
                out.printf(Locale.ROOT, ROW, counter.getKey(), counter.getValue());
            }
            out.flush();
        }
        return 0;
    }
}
