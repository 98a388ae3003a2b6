package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStoreProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The help of each command lists every store URL scheme it takes and only options it uses: an option a
 * command refuses outright is left out of its help.
 */
class CommandHelpTest {

    /** A store URL every command refuses before connecting, so a run ends at the store or sooner. */
    private static final String MALFORMED_STORE = "redis://127.0.0.1:notaport";
    /** A value of each parameter label for an option without a default. */
    private static final Map<String, String> SAMPLES = Map.of("N", "4", "D", "5s", "KEY", "k", "NS", "ns",
            "INSTANT", "2026-12-01T00:00:00Z", "IDS_PER_SECOND", "10", "NAME", "a", "ADDR", "127.0.0.1", "PORT", "0");

    @TempDir
    Path dir;

    /** Every scheme {@code LeaseStores} opens: {@code memory:} and each store module's prefixes. */
    private static List<String> schemes() {
        List<String> schemes = new ArrayList<>(List.of("memory:"));
        ServiceLoader.load(LeaseStoreProvider.class).forEach(provider -> schemes.addAll(provider.prefixes()));
        return schemes;
    }

    private static Map<String, CommandLine> commands() {
        Map<String, CommandLine> commands = new TreeMap<>(new CommandLine(new CosIdCommand()).getSubcommands());
        commands.remove("help");
        return commands;
    }

    private static String help(String command) {
        Cli help = Cli.run(command, "--help");
        assertEquals(0, help.status(), help.err());
        return help.out();
    }

    @Test
    void everyCommandThatTakesAStoreListsEverySchemeInItsHelp() {
        List<String> schemes = schemes();
        assertTrue(schemes.containsAll(List.of("sqlite:", "jdbc:postgresql:", "redis://", "rediss://",
                "redis-sentinel://", "redis-cluster://", "zookeeper://", "etcd://")), schemes.toString());
        Set<String> takingAStore = new TreeSet<>();
        commands().forEach((name, command) -> {
            boolean takesStore = command.getCommandSpec().options().stream()
                    .anyMatch(option -> option.longestName().endsWith("store") && option.paramLabel().equals("URL"));
            if (!takesStore) {
                return;
            }
            takingAStore.add(name);
            // picocli wraps long words anywhere: compare without the wrapping
            String unwrapped = help(name).replaceAll("\\s+", "");
            for (String scheme : schemes) {
                assertTrue(unwrapped.contains(scheme), name + " --help names no " + scheme + ":\n" + help(name));
            }
        });
        assertEquals(Set.of("generate", "leader", "leases", "migrate", "roles", "segment", "segments", "serve"),
                takingAStore);
    }

    @Test
    void aHiddenOptionIsOneTheCommandRefusesAndEveryListedOneItTakes() {
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            for (String name : List.of("generate", "serve", "segment", "leases", "segments")) {
                CommandSpec spec = commands().get(name).getCommandSpec();
                String help = help(name);
                for (OptionSpec option : spec.options()) {
                    String longest = option.longestName();
                    if (longest.equals("--help") || longest.equals("--version") || longest.equals("--store")) {
                        continue;
                    }
                    Cli run = Cli.run(arguments(name, option));
                    String refusal = longest + " cannot be used with " + name;
                    if (option.hidden()) {
                        assertFalse(help.contains(longest), name + " --help lists " + longest + ":\n" + help);
                        assertEquals(2, run.status(), run.err());
                        assertTrue(run.err().startsWith("cosid " + name + ": " + refusal), run.err());
                    } else {
                        assertTrue(help.contains(longest), name + " --help leaves out " + longest);
                        assertFalse(run.err().contains(refusal), run.err());
                        assertEquals(2, run.status(), "the malformed store ends the run: " + run.err());
                    }
                }
            }
        });
        assertTrue(commands().get("segment").getCommandSpec().options().stream().filter(OptionSpec::hidden)
                .map(OptionSpec::longestName).toList().containsAll(List.of("--layout", "--max-lead", "--ticking-clock",
                        "--static-slot", "--state-file", "--ahead", "--not-before", "--allow-future-not-before")),
                "segment refuses the options of Snowflake ids");
    }

    /** The command with the malformed store and one option, with a value when it takes one. */
    private String[] arguments(String command, OptionSpec option) {
        List<String> args = new ArrayList<>(List.of(command));
        if (command.equals("segment")) {
            args.add("orders");
        }
        if (command.equals("serve") && !option.longestName().equals("--port")) {
            args.addAll(List.of("--port", "0"));
        }
        args.addAll(List.of("--store", MALFORMED_STORE, option.longestName()));
        if (option.arity().max() > 0) {
            String label = option.paramLabel();
            args.add(option.defaultValue() != null ? option.defaultValue()
                    : label.equals("PATH") ? dir.resolve("missing").toString()
                    : SAMPLES.getOrDefault(label, "x"));
        }
        return args.toArray(String[]::new);
    }
}
