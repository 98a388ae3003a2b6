package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Members racing for a role: never two unfenced holders; failovers within deadline + rank * stagger. */
class LeadershipSimulationTest {

    @Test
    void neverTwoUnfencedHoldersAndFailoverWithinTheBound() {
        String value = System.getProperty("cosid.sim.seeds", "");
        long seeds = Math.max(1, (value.isBlank() ? 300 : Long.parseLong(value.trim())) / 3);
        List<String> failures = new ArrayList<>();
        int takeovers = 0;
        int measured = 0;
        long worst = Long.MIN_VALUE;
        for (long seed = 1; seed <= seeds; seed++) {
            LeadershipSimulation.Report report = LeadershipSimulation.run(seed, Duration.ofSeconds(60));
            takeovers += report.takeovers();
            measured += report.measured();
            worst = Math.max(worst, report.worstFailoverPastBoundMillis());
            if (!report.violations().isEmpty()) {
                failures.add("seed " + seed + ": " + report.violations().get(0));
            }
        }
        System.out.println("leadership simulation: " + seeds + " seeds x 60 s; takeovers " + takeovers
                + ", " + measured + " clean failovers measured; worst takeover relative to deadline + (members - 1) * stagger + retry + 2 * skew: " + worst
                + " ms; violations " + failures.size());
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
        assertTrue(takeovers > seeds, "the faults moved the role around: " + takeovers);
        assertTrue(measured > 0, "no clean failover was measured");
        assertTrue(worst <= 0, "a takeover came " + worst + " ms after its bound");
    }
}
