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
import dev.cosid.lease.SlotTable;
import dev.cosid.testkit.Await;
import dev.cosid.time.Clock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Settings out of range, and settings that differ from what the store records, are bad input: exit 2,
 * one line, nothing written.
 */
class SettingLimitsCommandTest {

    @TempDir
    Path dir;

    private String store() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private static void assertBadInput(Cli run, String line) {
        assertEquals(2, run.status(), run.err());
        assertEquals(line + "\n", run.err());
        assertEquals("", run.out());
    }

    @Test
    void aHugeTtlExitsTwoAndTouchesNoStore() {
        assertBadInput(Cli.run("generate", "--ttl", "100000000h", "--store", store()),
                "cosid generate: ttl of 100000000 h is longer than the most, 24 h");
        assertFalse(Files.exists(dir.resolve("cosid.db")), "no database was created");
    }

    @Test
    void aHugeToleranceExitsTwoAndTouchesNoStore() {
        assertBadInput(Cli.run("generate", "--tolerance", "100000000h", "--store", store()),
                "cosid generate: tolerance of 100000000 h is longer than the most, 1 h");
        assertFalse(Files.exists(dir.resolve("cosid.db")));
    }

    @Test
    void aMaxLeadPastAMinuteExitsTwoAndTouchesNoStore() {
        assertBadInput(Cli.run("generate", "--max-lead", "2m", "--store", store()),
                "cosid generate: maxLead of 2 min is longer than the most, 1 min");
        assertFalse(Files.exists(dir.resolve("cosid.db")));
    }

    @Test
    void aBurstWithMaxLeadAndTheTickingClockRunsAheadOfTheClockWithinTheLead() {
        Cli run = Cli.run("generate", "--count", "20000", "--max-lead", "1s", "--ticking-clock", "--store", store());
        long clockAfter = Clock.system().nowMillis();
        assertEquals(0, run.status(), run.err());
        List<String> lines = run.out().lines().toList();
        assertEquals(20_000, lines.size());
        long previous = -1;
        for (String line : lines) {
            long id = Long.parseLong(line);
            assertTrue(id > previous, "ids increase");
            previous = id;
        }
        long last = IdLayout.MILLISECOND.parse(previous).timestampMillis();
        assertTrue(last <= clockAfter + 1_000, "the last id at " + last + " ms leads the clock at " + clockAfter
                + " ms by at most the lead");
    }

    @Test
    void aHugeAheadExitsTwoAndWritesNoStateFile() {
        Path state = dir.resolve("state");
        assertBadInput(Cli.run("generate", "--static-slot", "1", "--state-file", state.toString(), "--ahead",
                "100000000h"), "cosid generate: ahead of 100000000 h is longer than the most, 24 h");
        assertFalse(Files.exists(state));
    }

    @Test
    void aNotBeforeInTheNextCenturyNeedsTheFlag() {
        Path state = dir.resolve("state");
        Cli refused = Cli.run("generate", "--static-slot", "1", "--state-file", state.toString(), "--not-before",
                "2100-01-01T00:00:00Z");
        assertEquals(2, refused.status(), refused.err());
        assertEquals(1, refused.err().lines().count(), refused.err());
        assertTrue(refused.err().contains("--allow-future-not-before"), refused.err());
        assertFalse(Files.exists(state), "nothing kept: a corrected rerun starts from the corrected value");
        Cli corrected = Cli.run("generate", "--static-slot", "1", "--state-file", state.toString(), "--not-before",
                "2020-01-01T00:00:00Z", "--count", "1");
        assertEquals(0, corrected.status(), corrected.err());
        long millis = IdLayout.MILLISECOND.parse(Long.parseLong(corrected.out().strip())).timestampMillis();
        assertTrue(Math.abs(millis - Clock.system().nowMillis()) < 60_000, "issued now, not in 2100");
    }

    @Test
    void theFlagAllowsAFarNotBeforeOnlyWithAStaticSlot() {
        assertBadInput(Cli.run("generate", "--allow-future-not-before", "--store", store()),
                "cosid generate: --allow-future-not-before needs --static-slot");
        Path state = dir.resolve("state");
        Cli allowed = Cli.run("generate", "--static-slot", "1", "--state-file", state.toString(), "--not-before",
                "2100-01-01T00:00:00Z", "--allow-future-not-before", "--duration", "1s");
        assertEquals(0, allowed.status(), allowed.err());
        assertEquals("", allowed.out(), "no id before the not-before");
        assertTrue(allowed.err().contains("held by the floor"), allowed.err());
    }

    @Test
    void aToleranceOrBitsThatDifferFromTheNamespaceExitTwo() {
        assertEquals(0, Cli.run("generate", "--count", "1", "--store", store()).status());
        Cli tolerance = Cli.run("generate", "--count", "1", "--tolerance", "2s", "--store", store());
        assertEquals(2, tolerance.status(), tolerance.err());
        assertEquals(1, tolerance.err().lines().count(), tolerance.err());
        assertTrue(tolerance.err().contains("holds 1024 slots and tolerance 1000 ms"), tolerance.err());
        Cli bits = Cli.run("generate", "--count", "1", "--bits", "5", "--store", store());
        assertEquals(2, bits.status(), bits.err());
    }

    @Test
    void aSecondLayoutOnTheSameNamespaceExitsTwoAndPrintsNoId() {
        Cli millis = Cli.run("generate", "--count", "3", "--layout", "MILLISECOND", "--store", store());
        assertEquals(0, millis.status(), millis.err());
        Cli seconds = Cli.run("generate", "--count", "3", "--layout", "SECOND", "--store", store());
        assertEquals(2, seconds.status(), seconds.err());
        assertEquals("", seconds.out());
        List<String> lines = seconds.err().lines().toList();
        assertTrue(lines.get(0).startsWith("cosid: acquired slot 0"), "a lease event first: " + lines);
        assertEquals(2, lines.size(), seconds.err());
        assertEquals(lines.get(1), "cosid generate: id space 'cli' of namespace 'default' uses the layout MILLISECOND "
                + "(epoch 1577203200000 ms, unit 1 ms, 41+10+12 bits); this generator asks for SECOND (epoch "
                + "1577203200000 ms, unit 1000 ms, 31+10+22 bits). Ids of two layouts in one id space can be equal: "
                + "keep its layout, or give the generator another name");
        Cli again = Cli.run("generate", "--count", "3", "--layout", "MILLISECOND", "--store", store());
        assertEquals(0, again.status(), "the slot was given back: " + again.err());
        Cli otherNamespace = Cli.run("generate", "--count", "3", "--layout", "SECOND", "--namespace", "batch",
                "--store", store());
        assertEquals(0, otherNamespace.status(), otherNamespace.err());
    }

    @Test
    void theColdStartGuardStartsANewSlotRecordPastTtlAndTolerance() {
        long before = Clock.system().nowMillis();
        Cli guarded = Cli.run("generate", "--count", "2", "--ttl", "2s", "--tolerance", "1s", "--cold-start-guard",
                "--store", store());
        assertEquals(0, guarded.status(), guarded.err());
        List<String> ids = guarded.lines();
        assertEquals(2, ids.size());
        long first = IdLayout.MILLISECOND.parse(Long.parseLong(ids.get(0))).timestampMillis();
        assertTrue(first > before + 3_000, "the first id waited out ttl + tolerance: " + (first - before) + " ms");
        assertBadInput(Cli.run("generate", "--cold-start-guard", "--static-slot", "1", "--state-file",
                dir.resolve("s").toString()), "cosid generate: --cold-start-guard cannot be used with --static-slot, which uses no store: its window comes from --state-file");
    }

    @Test
    void theTakeoverGuardStartsASlotTakenFromAnExpiredHolderPastTtlAndTolerance() {
        // a holder of both slots that dies without releasing them: the run has to take one over
        try (LeaseStore store = LeaseStores.open(store())) {
            store.register("default", new NamespaceRecord(2, 1_000));
            for (int slot = 0; slot < 2; slot++) {
                assertTrue(store.acquire("default", slot, Owner.of("crashed"), new LeaseTerms(1, 1_000)).isPresent());
            }
            Await.until(() -> {
                SlotTable table = store.read("default");
                return table.slots().stream().allMatch(r -> r.freeAt(table.storeNow()));
            }, Duration.ofSeconds(10), "both leases expired");
        }
        long before = Clock.system().nowMillis();
        Cli guarded = Cli.run("generate", "--count", "1", "--bits", "1", "--ttl", "2s", "--tolerance", "1s",
                "--takeover-guard", "--store", store());
        assertEquals(0, guarded.status(), guarded.err());
        long first = IdLayout.MILLISECOND.parse(Long.parseLong(guarded.lines().get(0))).timestampMillis();
        assertTrue(first > before + 3_000, "the first id waited out ttl + tolerance: " + (first - before) + " ms");
        assertBadInput(Cli.run("generate", "--takeover-guard", "--static-slot", "1", "--state-file",
                dir.resolve("s").toString()), "cosid generate: --takeover-guard cannot be used with --static-slot, which uses no store: its window comes from --state-file");
    }
}
