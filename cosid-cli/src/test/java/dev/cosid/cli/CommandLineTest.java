package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
        Cli result = run("generate", "--duration", "300ms", "--rate", "100", "--store", "memory:");
        assertEquals(0, result.status(), result.err());
        int printed = result.lines().size();
        assertTrue(printed >= 20 && printed <= 31, "about 30 ids in 300 ms at 100 a second: " + printed);
    }

    @Test
    void decodePrintsTimeSlotAndSequence() {
        long id = IdLayout.MILLISECOND.compose(IdLayout.MILLISECOND.unitOf(1_764_680_002_123L), 3, 17);
        Cli result = run("decode", String.valueOf(id));
        assertEquals(0, result.status(), result.err());
        assertEquals(id + " time=2025-12-02T12:53:22.123Z slot=3 sequence=17 friendly=20251202125322123-3-17\n",
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
    void badStoreNamespaceAndBitsAreRefusedBeforeAnyStoreCall() throws Exception {
        assertOneLineError(run("generate", "--store", "mongodb://localhost/ids"), 2,
                "unknown store URL 'mongodb://localhost/ids'; supported prefixes: memory:,");
        assertOneLineError(run("generate", "--store", sqlite(), "--namespace", "orders/eu"), 2,
                "namespace 'orders/eu' may only contain");
        assertOneLineError(run("generate", "--store", sqlite(), "--namespace", ""), 2, "namespace is empty");
        assertOneLineError(run("generate", "--store", sqlite(), "--bits", "11"), 2,
                "bits 11 exceed the layout's slot bits 10");
        assertOneLineError(run("generate", "--store", sqlite(), "--layout", "SAFE_JS_MILLISECOND"), 2,
                "bits 10 exceed the layout's slot bits 3");
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
        assertOneLineError(run(), 2, "name a command");
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
