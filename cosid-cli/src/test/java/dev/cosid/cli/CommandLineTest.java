package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line in this JVM: output, exit status and one-line errors. */
class CommandLineTest {

    @TempDir
    Path dir;

    private static Cli run(String... args) {
        return Cli.run(args);
    }

    private String sqlite() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private static void assertOneLineError(Cli result, int status, String fragment) {
        assertEquals(status, result.status(), result.err());
        assertEquals("", result.out());
        assertEquals(1, result.err().strip().lines().count(), result.err());
        assertTrue(result.err().contains(fragment), result.err());
    }

    @Test
    void generatePrintsDistinctIncreasingIdsAndReleasesTheSlot() {
        Cli result = run("generate", "--count", "2000", "--store", sqlite());
        assertEquals(0, result.status(), result.err());
        long[] ids = result.lines().stream().mapToLong(Long::parseLong).toArray();
        assertEquals(2000, ids.length);
        for (int i = 1; i < ids.length; i++) {
            assertTrue(ids[i] > ids[i - 1]);
        }
        assertTrue(result.err().contains("acquired slot 0 of namespace 'default'"), result.err());

        Cli leases = run("leases", "--store", sqlite());
        assertEquals(0, leases.status(), leases.err());
        assertTrue(leases.out().contains("1024 slots and tolerance 1000 ms"), leases.out());
        String row = leases.lines().get(2);
        assertTrue(row.startsWith("0 ") && row.contains("(free, last "), row);
        long lastMillis = IdLayout.MILLISECOND.parse(ids[ids.length - 1]).timestampMillis();
        assertTrue(row.contains(" " + lastMillis), "the next floor is the last issued millisecond: " + row);
    }

    @Test
    void generateHonoursLayoutBitsAndNamespace() {
        Cli result = run("generate", "--count", "3", "--store", "memory:", "--layout", "SAFE_JS_SECOND",
                "--bits", "3", "--namespace", "batch.jobs");
        assertEquals(0, result.status(), result.err());
        for (String line : result.lines()) {
            assertTrue(Long.parseLong(line) < (1L << 53));
        }
    }

    @Test
    void generateWithARateTakesItsTime() {
        Cli result = run("generate", "--duration", "2s", "--rate", "100", "--store", "memory:");
        assertEquals(0, result.status(), result.err());
        List<Long> millis = result.lines().stream()
                .map(line -> IdLayout.MILLISECOND.parse(Long.parseLong(line)).timestampMillis()).toList();
        assertTrue(!millis.isEmpty() && millis.size() <= 201, "at most 200 ids in 2 s at 100 a second: " + millis.size());
        // paced ids lie about 10 ms apart (a late wake-up may let at most 10 ms worth through at once),
        // however long the run took to start on a busy machine
        long span = millis.get(millis.size() - 1) - millis.get(0);
        assertTrue(span >= (millis.size() - 2) * 10L - 10, millis.size() + " ids within " + span + " ms");
    }

    @Test
    void aRateIsNeverMadeUpInABurstAfterWaitingForTheOnlySlot() {
        String url = sqlite();
        try (LeaseStore store = LeaseStores.open(url)) {
            store.register("paced", new NamespaceRecord(1, 1_000));
            // another holder keeps the only slot for 1.5 s, and its window for 1 s more
            store.acquire("paced", 0, Owner.of("holder"), new LeaseTerms(1_500, 1_000)).orElseThrow();
        }
        long rate = 2_000;
        Cli result = run("generate", "--store", url, "--namespace", "paced", "--bits", "0", "--duration", "5s",
                "--rate", String.valueOf(rate));
        assertEquals(0, result.status(), result.err());
        long[] millis = result.lines().stream().mapToLong(line -> IdLayout.MILLISECOND.parse(Long.parseLong(line))
                .timestampMillis()).sorted().toArray();
        assertTrue(millis.length >= 1_000, "it issued once the slot was free: " + millis.length + " ids");
        int busiest = 0;
        for (int first = 0, last = 0; last < millis.length; last++) {
            while (millis[last] - millis[first] >= 1_000) {
                first++;
            }
            busiest = Math.max(busiest, last - first + 1);
        }
        assertTrue(busiest <= rate + rate / 50 + 2, "at most the rate and 2 % in any second, not the ids of the "
                + "wait made up in a burst: " + busiest + " ids in one second at --rate " + rate);
    }

    @Test
    void decodePrintsTimeSlotAndSequence() {
        long id = IdLayout.MILLISECOND.compose(IdLayout.MILLISECOND.unitOf(1_764_680_002_123L), 3, 17);
        Cli result = run("decode", String.valueOf(id));
        assertEquals(0, result.status(), result.err());
        assertTrue(result.out().matches(id + " time=2025-12-02T12:53:22.123Z slot=3 sequence=17 "
                + "friendly=20251202125322123-3-17\nlayout=MILLISECOND runsOutAt=2089-08-30T07:47:35.552Z runwayDays=\\d+\n"),
                result.out());
    }

    @Test
    void decodeRefusesBadIdsAndPrintsNothingForAnyOfThem() {
        assertOneLineError(run("decode", "12", "abc"), 2, "'abc' is not a decimal id");
        assertOneLineError(run("decode", "99999999999999999999"), 2, "out of range");
        assertOneLineError(run("decode", "-5"), 2, "id -5 is negative");
        assertOneLineError(run("decode", "--layout", "SAFE_JS_MILLISECOND", String.valueOf(1L << 53)), 2,
                "does not fit the layout's 53 bits");
        assertOneLineError(run("decode", "--layout", "MINUTE", "1"), 2, "unknown layout 'MINUTE'");
        assertOneLineError(run("decode"), 2, "Missing required parameter");
    }

    @Test
    void aDurationOfCenturiesIsBadInputNotAnOverflow() {
        assertOneLineError(run("generate", "--duration", "100000000h", "--store", "memory:"), 2,
                "--duration PT100000000H is longer than 36500 days");
    }

    @Test
    void badStoreNamespaceAndBitsAreRefusedBeforeAnyStoreCall() throws Exception {
        assertOneLineError(run("generate", "--store", "mongodb://localhost/ids"), 2,
                "unknown store URL scheme 'mongodb:'; supported: memory:, sqlite:,");
        assertOneLineError(run("generate", "--store", sqlite(), "--namespace", "orders/eu"), 2,
                "namespace 'orders/eu' may only contain");
        assertOneLineError(run("generate", "--store", sqlite(), "--namespace", ""), 2, "namespace is empty");
        assertOneLineError(run("generate", "--store", sqlite(), "--bits", "11"), 2,
                "bits 11 exceed the layout's slot bits 10");
        assertOneLineError(run("generate", "--store", sqlite(), "--layout", "SAFE_JS_MILLISECOND", "--bits", "4"), 2,
                "bits 4 exceed the layout's slot bits 3");
        assertOneLineError(run("generate", "--store", sqlite(), "--count", "0"), 2, "count 0 is less than 1");
        assertOneLineError(run("generate", "--store", sqlite(), "--count", "-5"), 2, "count -5 is less than 1");
        assertOneLineError(run("generate", "--store", sqlite(), "--rate", "0"), 2, "rate 0 is less than 1 id a second");
        assertOneLineError(run("generate", "--store", sqlite(), "--ttl", "soon"), 2, "'soon' is not a duration");
        assertOneLineError(run("generate", "--store", sqlite(), "--count", "x"), 2, "--count");
        assertFalse(Files.exists(dir.resolve("cosid.db")), "nothing was written");
    }

    @Test
    void aNamespaceRegisteredWithOtherBitsIsRefusedNamingBoth() {
        assertEquals(0, run("generate", "--store", sqlite(), "--bits", "4").status());
        assertOneLineError(run("generate", "--store", sqlite(), "--bits", "5"), 2,
                "holds 16 slots and tolerance 1000 ms; this runtime asks for 32 slots");
    }

    @Test
    void leasesOfAnUnknownNamespaceSaysSo() {
        assertOneLineError(run("leases", "--store", sqlite(), "--namespace", "nobody"), 1,
                "namespace 'nobody' is not registered");
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : List.of("generate", "decode", "leases")) {
            Cli help = run(command, "--help");
            assertEquals(0, help.status());
            assertTrue(help.out().contains("Usage: cosid " + command), help.out());
        }
        Cli top = run("--help");
        assertTrue(top.out().contains("generate") && top.out().contains("decode") && top.out().contains("leases"));
    }

    @Test
    void noCommandOrAnUnknownOneIsOneLineAndStatusTwo() {
        Cli none = run();
        assertOneLineError(none, 2, "name a command: generate, decode, leases, schema");
        assertTrue(none.err().startsWith("cosid: name a command"), "one prefix: " + none.err());
        Cli unknown = run("frobnicate", "--help");
        assertOneLineError(unknown, 2, "unknown command 'frobnicate'; commands: generate, decode, leases, schema");
        assertTrue(unknown.err().startsWith("cosid: unknown command"), unknown.err());
        assertOneLineError(run("frobnicate"), 2, "unknown command 'frobnicate'");
        assertOneLineError(run("generate", "--frobnicate"), 2, "cosid generate: Unknown option: '--frobnicate'");
    }

    @Test
    void theSafeJsLayoutsWorkWithoutBitsAndTakeTheirThreeSlotBits() {
        for (String layout : List.of("SAFE_JS_MILLISECOND", "SAFE_JS_SECOND")) {
            Cli result = run("generate", "--count", "3", "--store", sqlite(), "--namespace", layout.replace('_', '-'),
                    "--layout", layout);
            assertEquals(0, result.status(), result.err());
            assertEquals(3, result.lines().size());
            result.lines().forEach(line -> assertTrue(Long.parseLong(line) < (1L << 53), line));
            Cli leases = run("leases", "--store", sqlite(), "--namespace", layout.replace('_', '-'));
            assertTrue(leases.out().contains("8 slots"), leases.out());
        }
        Cli millis = run("generate", "--store", sqlite(), "--namespace", "wide");
        assertEquals(0, millis.status(), millis.err());
        assertTrue(run("leases", "--store", sqlite(), "--namespace", "wide").out().contains("1024 slots"));
    }

    @Test
    void conflictingOptionsAreRefusedBeforeAnythingIsWritten() {
        Path state = dir.resolve("slot.state");
        for (String option : List.of("--store", "--ttl", "--tolerance")) {
            String value = option.equals("--store") ? sqlite() : "5s";
            assertOneLineError(run("generate", "--static-slot", "1", "--state-file", state.toString(), option, value), 2,
                    option + " cannot be used with --static-slot, which uses no store");
        }
        for (String option : List.of("--state-file", "--not-before", "--ahead")) {
            String value = option.equals("--state-file") ? state.toString()
                    : option.equals("--ahead") ? "5s" : "2026-12-01T00:00:00Z";
            assertOneLineError(run("generate", "--store", sqlite(), option, value), 2, option + " needs --static-slot");
        }
        assertOneLineError(run("generate", "--store", sqlite(), "--count", "3", "--duration", "1s"), 2,
                "--count=N, --duration=D are mutually exclusive");
        assertFalse(Files.exists(state), "no state file was written");
        assertFalse(Files.exists(dir.resolve("cosid.db")), "no store was opened");
    }

    @Test
    void leaseEventsAndTheSlotTableShowEveryInstantAsIsoUtcBesideTheMilliseconds() {
        Cli result = run("generate", "--store", sqlite());
        assertEquals(0, result.status(), result.err());
        Matcher acquired = Pattern.compile("cosid: acquired slot 0 of namespace 'default': fence 1, floor 0 "
                + "\\(1970-01-01T00:00:00\\.000Z\\), ceiling (\\d+) \\((\\S+)\\), expires at (\\d+) \\((\\S+)\\), owner ")
                .matcher(result.err());
        assertTrue(acquired.find(), result.err());
        assertEquals(Instant.ofEpochMilli(Long.parseLong(acquired.group(1))), Instant.parse(acquired.group(2)));
        assertEquals(Instant.ofEpochMilli(Long.parseLong(acquired.group(3))), Instant.parse(acquired.group(4)));

        Cli leases = run("leases", "--store", sqlite());
        assertEquals(0, leases.status(), leases.err());
        Matcher clock = Pattern.compile("store clock (\\d+) \\((\\S+)\\)").matcher(leases.lines().get(0));
        assertTrue(clock.find(), leases.lines().get(0));
        assertEquals(Instant.ofEpochMilli(Long.parseLong(clock.group(1))), Instant.parse(clock.group(2)));
        String row = leases.lines().get(2);
        Matcher times = Pattern.compile("(\\d+) \\((\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z)\\)").matcher(row);
        int found = 0;
        while (times.find()) {
            assertEquals(Instant.ofEpochMilli(Long.parseLong(times.group(1))), Instant.parse(times.group(2)), row);
            found++;
        }
        assertEquals(3, found, "floor, ceiling and next floor each in both forms: " + row);
    }

    @Test
    void idsFromManyRunsOnOneStoreNeverRepeat() {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            Cli result = run("generate", "--count", "500", "--store", sqlite());
            for (long id : result.lines().stream().mapToLong(Long::parseLong).toArray()) {
                assertTrue(seen.add(id), "repeated id " + id);
            }
        }
        assertEquals(2500, seen.size());
        Set<Integer> slots = seen.stream().map(id -> IdLayout.MILLISECOND.parse(id).slot()).collect(Collectors.toSet());
        assertEquals(Set.of(0), slots, "a released slot is reused, starting after its last issued millisecond");
    }
}
