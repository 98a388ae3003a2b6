package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Runs a budget of seeds (property {@code cosid.sim.seeds}, default 300; {@code cosid.sim.seconds} of
 * virtual time each, default 20) or one seed ({@code cosid.sim.seed}), and fails on any duplicate,
 * window violation or overlap, printing the command that replays the failing seed. The snapshot-revert
 * runs take {@code cosid.sim.revert-seeds} (default 10) of {@code cosid.sim.revert-seconds} (default 10).
 */
class SimulationTest {

    private static long property(String name, long fallback) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    @Test
    void noSeedRepeatsAnIdOrLeavesAWindow() {
        long seconds = property("cosid.sim.seconds", 20);
        long single = property("cosid.sim.seed", -1);
        long seeds = single >= 0 ? 1 : property("cosid.sim.seeds", 300);
        long first = single >= 0 ? single : 1;
        long ids = 0;
        long refused = 0;
        long longest = 0;
        Map<String, Integer> faults = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        for (long seed = first; seed < first + seeds; seed++) {
            Simulation.Report report = Simulation.run(seed, Duration.ofSeconds(seconds));
            ids += report.ids();
            refused += report.refused();
            longest = Math.max(longest, report.longestUnavailableMillis());
            report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
            if (!report.violations().isEmpty()) {
                failures.add("seed " + seed + ": " + report.violations().get(0) + "\n  replay: mvn -pl cosid-simulation "
                        + "-am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest=SimulationTest -Dcosid.sim.seed="
                        + seed + " -Dcosid.sim.seconds=" + seconds);
            }
        }
        System.out.println("simulation: " + seeds + " seeds x " + seconds + " s virtual; ids issued " + ids
                + ", ids refused " + refused + ", longest unavailability " + longest + " ms, duplicates and window "
                + "violations " + failures.size() + "; faults " + faults);
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds failed:\n" + String.join("\n", failures));
        }
        assertTrue(ids > seeds * 1_000, "the runs issued ids: " + ids);
        assertTrue(faults.size() >= 9, "every kind of fault was injected: " + faults.keySet());
    }

    /**
     * Seeds with a lead and bursts that use it, with a ticking clock that lags, steps and stalls, and with
     * both ({@code cosid.sim.variant-seeds} per variant, default 8, of {@code cosid.sim.variant-seconds}
     * virtual time, default 10; one with {@code cosid.sim.variant} and {@code cosid.sim.seed}): no id
     * twice, none outside its window, none further ahead of its generator's clock than the lead.
     */
    @Test
    void seedsWithALeadAndATickingClockRepeatNoIdLeaveNoWindowAndKeepTheLead() {
        long seconds = property("cosid.sim.variant-seconds", 10);
        long single = property("cosid.sim.seed", -1);
        String only = System.getProperty("cosid.sim.variant", "");
        List<Simulation.Variant> variants = only.isBlank()
                ? List.of(Simulation.Variant.LEAD, Simulation.Variant.TICKING, Simulation.Variant.LEAD_TICKING)
                : List.of(Simulation.Variant.valueOf(only.trim()));
        long seeds = single >= 0 ? 1 : property("cosid.sim.variant-seeds", 8);
        long first = single >= 0 ? single : 1;
        List<String> failures = new ArrayList<>();
        for (Simulation.Variant variant : variants) {
            long ids = 0;
            long ahead = 0;
            long refused = 0;
            Map<String, Integer> faults = new TreeMap<>();
            for (long seed = first; seed < first + seeds; seed++) {
                Simulation.Report report = Simulation.run(seed, Duration.ofSeconds(seconds), variant);
                ids += report.ids();
                ahead += report.idsAhead();
                refused += report.refused();
                report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
                if (!report.violations().isEmpty()) {
                    failures.add(variant + " seed " + seed + ": " + report.violations().get(0) + "\n  replay: mvn -pl "
                            + "cosid-simulation -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest=SimulationTest"
                            + " -Dcosid.sim.variant=" + variant + " -Dcosid.sim.seed=" + seed + " -Dcosid.sim.variant-seconds="
                            + seconds);
                }
            }
            System.out.println("simulation " + variant + ": " + seeds + " seeds x " + seconds + " s virtual; ids issued "
                    + ids + ", of them ahead of the clock " + ahead + ", ids refused " + refused + "; faults " + faults);
            assertTrue(ids > seeds * 1_000, variant + ": the runs issued ids: " + ids);
            if (variant != Simulation.Variant.TICKING && single < 0) {
                assertTrue(ahead > 0, variant + ": bursts ran ahead of the clock");
            }
            if (variant != Simulation.Variant.LEAD && single < 0) {
                assertTrue(faults.containsKey("ticking clock stalled"), variant + ": ticks stalled: " + faults.keySet());
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds failed:\n" + String.join("\n", failures));
        }
    }

    @Test
    void aSeedReplaysExactly() {
        Simulation.Report once = Simulation.run(7, Duration.ofSeconds(10));
        Simulation.Report again = Simulation.run(7, Duration.ofSeconds(10));
        assertEquals(once.ids(), again.ids());
        assertEquals(once.refused(), again.refused());
        assertEquals(once.faults(), again.faults());
    }

    private static final long REVERT_SECONDS = property("cosid.sim.revert-seconds", 10);
    private static final int REVERT_SEEDS = (int) property("cosid.sim.revert-seeds", 10);

    /**
     * Runs the fixed seeds 1..REVERT_SEEDS with snapshot reverts and the cold-start guard, so the takeover
     * guard is the only difference; returns the first violation of each failing seed.
     */
    private static List<String> revertRuns(boolean takeoverGuard, Map<String, Integer> faults, long[] duplicates) {
        List<String> failed = new ArrayList<>();
        Simulation.Options options = Simulation.Options.DEFAULT.withSnapshotReverts().withGuards(true, takeoverGuard);
        for (long seed = 1; seed <= REVERT_SEEDS; seed++) {
            Simulation.Report report = Simulation.run(seed, Duration.ofSeconds(REVERT_SECONDS), options);
            report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
            duplicates[0] += report.violations().stream().filter(v -> v.contains("issued twice")).count();
            if (!report.violations().isEmpty()) {
                failed.add("seed " + seed + ": " + report.violations().get(0));
            }
        }
        System.out.println("snapshot reverts, takeover guard " + (takeoverGuard ? "on" : "off") + ": " + REVERT_SEEDS
                + " seeds x " + REVERT_SECONDS + " s virtual; seeds with a violation " + failed.size()
                + ", duplicate ids reported " + duplicates[0] + " (the checker lists at most 20 per seed)");
        return failed;
    }

    @Test
    void aStoreSteppedBackToAnOlderSnapshotRepeatsIdsWithoutTheTakeoverGuard() {
        Map<String, Integer> faults = new TreeMap<>();
        long[] duplicates = {0};
        List<String> failed = revertRuns(false, faults, duplicates);
        assertTrue(duplicates[0] > 0,
                "the snapshot-revert fault never made a duplicate in " + REVERT_SEEDS + " seeds: " + failed);
    }

    @Test
    void theTakeoverGuardKeepsIdsUniqueWhenTheStoreStepsBack() {
        Map<String, Integer> faults = new TreeMap<>();
        List<String> failed = revertRuns(true, faults, new long[1]);
        assertEquals(List.of(), failed);
        assertTrue(faults.keySet().containsAll(List.of("store reverted to an older snapshot, all records",
                "store reverted to an older snapshot, some records")), "both reverts were injected: " + faults);
    }

    /** A store that forgets the next floor: a new holder starts at floor 0, inside its predecessor's window. */
    private static final class ForgetfulStore extends SimStoreDelegate {
        ForgetfulStore(LeaseStore store) {
            super(store);
        }

        @Override
        public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
            return super.acquire(namespace, slot, owner, terms).map(lease -> new SlotLease(lease.namespace(),
                    lease.slot(), lease.owner(), lease.fence(), lease.expiresAt(), 0, lease.ceiling(), lease.storeNow()));
        }
    }

    @Test
    void theCheckerCatchesADeliberatelyBrokenStore() {
        int caught = 0;
        for (long seed = 1; seed <= 40; seed++) {
            if (!Simulation.run(seed, Duration.ofSeconds(20), ForgetfulStore::new).violations().isEmpty()) {
                caught++;
            }
        }
        assertTrue(caught > 0, "a store that hands out floor 0 went unnoticed in 40 seeds");
        System.out.println("the broken store was caught in " + caught + " of 40 seeds");
    }
}
