package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Real electors under pauses, crashes, cut-offs, lost calls and skewed clocks: fenced writes never go back,
 * unfenced work never overlaps unless a leader was frozen, a leader that cannot renew stops before its
 * deadline, and the role is served again within the failover bound. Runs {@code cosid.sim.elector-seeds}
 * seeds (default 200) of {@code cosid.sim.elector-seconds} virtual seconds each (default 60), or the one seed
 * {@code cosid.sim.seed} with its events printed; a failing seed prints the command that replays it.
 */
class ElectorSimulationTest {

    private static long property(String name, long fallback) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    private static final long SECONDS = property("cosid.sim.elector-seconds", 60);

    @Test
    void electorsKeepFencedWritesInOrderAndUnfencedWorkApartAndServeTheRoleWithinTheBound() {
        long single = property("cosid.sim.seed", -1);
        long seeds = single >= 0 ? 1 : property("cosid.sim.elector-seeds", 200);
        long first = single >= 0 ? single : 1;
        ElectorSimulation.Options options = single >= 0 ? ElectorSimulation.Options.DEFAULT.withTrace()
                : ElectorSimulation.Options.DEFAULT;
        List<String> failures = new ArrayList<>();
        Map<String, Integer> faults = new TreeMap<>();
        long elections = 0;
        long takeovers = 0;
        long measured = 0;
        long worst = Long.MIN_VALUE;
        long writes = 0;
        long refused = 0;
        long actions = 0;
        long overlapsAfterPause = 0;
        long frozen = 0;
        for (long seed = first; seed < first + seeds; seed++) {
            ElectorSimulation.Report report = ElectorSimulation.run(seed, Duration.ofSeconds(SECONDS), options);
            if (single >= 0) {
                report.trace().forEach(System.out::println);
            }
            elections += report.elections();
            takeovers += report.takeovers();
            measured += report.failoversMeasured();
            worst = Math.max(worst, report.worstFailoverPastBoundMillis());
            writes += report.fencedWrites();
            refused += report.fencedWritesRefused();
            actions += report.unfencedActions();
            overlapsAfterPause += report.overlapsAfterPause();
            frozen += report.frozenPastDeadline();
            report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
            if (!report.violations().isEmpty()) {
                failures.add("seed " + seed + " (" + report.settings() + "): " + report.violations().size()
                        + " violations, the first: " + report.violations().get(0) + "\n  replay: mvn -pl "
                        + "cosid-simulation -am verify -Dsurefire.failIfNoSpecifiedTests=false "
                        + "-Dtest='ElectorSimulationTest#electorsKeep*' -Dcosid.sim.seed=" + seed
                        + " -Dcosid.sim.elector-seconds=" + SECONDS);
            }
        }
        System.out.println("elector simulation: " + seeds + " seeds x " + SECONDS + " s virtual; elections "
                + elections + ", takeovers " + takeovers + "; fenced writes accepted " + writes + ", refused "
                + refused + " (deposed leaders); unfenced actions " + actions + "; overlaps after a pause (fenced "
                + "work only) " + overlapsAfterPause + ", leaders frozen past their deadline " + frozen
                + "; failovers measured " + measured + ", worst relative to its bound " + worst
                + " ms; seeds with a violation " + failures.size() + "; faults " + faults);
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds failed:\n" + String.join("\n", failures.subList(0,
                    Math.min(10, failures.size()))));
        }
        assertTrue(worst <= 0, "a failover came " + worst + " ms after its bound");
        if (single < 0) {
            assertTrue(takeovers > seeds, "the faults moved the role around: " + takeovers);
            assertTrue(measured > seeds, "failovers were measured: " + measured);
            assertTrue(refused > 0, "a deposed leader's fenced write was refused");
            assertTrue(overlapsAfterPause > 0, "a leader frozen past its lease overlapped its successor");
            assertTrue(faults.keySet().containsAll(List.of("pauses past the lease", "crashes, restarted with the "
                    + "same member id", "cut off from the cluster while running", "flaky links", "clock steps "
                    + "within the bound", "resignations", "clean shutdowns, restarted")), "every fault: " + faults);
            assertTrue(faults.get("calls lost before they applied") > 0
                    && faults.get("calls applied with the answer lost") > 0, "calls were lost both ways: " + faults);
        }
    }

    @Test
    void aSeedReplaysExactly() {
        ElectorSimulation.Report once = ElectorSimulation.run(7, Duration.ofSeconds(30),
                ElectorSimulation.Options.DEFAULT.withTrace());
        ElectorSimulation.Report again = ElectorSimulation.run(7, Duration.ofSeconds(30),
                ElectorSimulation.Options.DEFAULT.withTrace());
        assertEquals(once, again);
        assertTrue(once.trace().size() > 20, "the trace records the run: " + once.trace().size());
    }

    @Test
    void aRevokeMarginBelowTheSkewLetsACutOffLeaderWorkPastItsDeadlineAndTheCheckerSaysSo() {
        ElectorSimulation.Options broken = ElectorSimulation.Options.DEFAULT
                .withMarginAndOffset(Duration.ofMillis(1), Duration.ofMillis(250));
        int caught = 0;
        boolean lateStop = false;
        boolean overlap = false;
        for (long seed = 1; seed <= 20; seed++) {
            List<String> violations = ElectorSimulation.run(seed, Duration.ofSeconds(SECONDS), broken).violations();
            caught += violations.isEmpty() ? 0 : 1;
            lateStop |= violations.stream().anyMatch(v -> v.contains("still leads"));
            overlap |= violations.stream().anyMatch(v -> v.contains("(not paused) still ran its unfenced work"));
        }
        System.out.println("negative control, a revoke margin of 1 ms with clocks +-250 ms apart: violations in "
                + caught + " of 20 seeds");
        assertTrue(lateStop, "a cut-off leader stopped after its deadline, and the checker said so");
        assertTrue(overlap, "a standby took over while the cut-off leader still worked, and the checker said so");
    }

    @Test
    void aResourceThatDoesNotCompareTokensLetsADeposedLeadersWriteLandAndTheCheckerSaysSo() {
        ElectorSimulation.Options broken = ElectorSimulation.Options.DEFAULT.withUncomparingFence();
        int caught = 0;
        for (long seed = 1; seed <= 20; seed++) {
            List<String> violations = ElectorSimulation.run(seed, Duration.ofSeconds(SECONDS), broken).violations();
            if (violations.stream().anyMatch(v -> v.contains("the fenced resource accepted a write"))) {
                caught++;
            }
        }
        System.out.println("negative control, a resource that does not compare tokens: a deposed leader's write "
                + "landed after its successor's in " + caught + " of 20 seeds");
        assertTrue(caught > 0, "a deposed leader's write landed, and the checker said so");
    }
}
