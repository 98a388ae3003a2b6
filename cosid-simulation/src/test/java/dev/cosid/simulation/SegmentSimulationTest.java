package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.SegmentRange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Segment ids in the deterministic simulation: {@code cosid.sim.segment-seeds} seeds (default
 * {@code cosid.sim.seeds / 15}, so 20) of
 * {@code cosid.sim.segment-seconds} virtual time (default 10), or one with {@code cosid.sim.seed}: no id
 * twice, each incarnation's ids increasing, under lost, late, doubled and stale store answers, crashes,
 * restarts, pauses and clean closes. A store that forgets one reservation is caught.
 */
class SegmentSimulationTest {

    private static long property(String name, long fallback) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    @Test
    void noSeedRepeatsASegmentId() {
        long seconds = property("cosid.sim.segment-seconds", 10);
        long single = property("cosid.sim.seed", -1);
        // the standing budget flag scales it too: 300 seeds make 20 here, -Dcosid.sim.seeds=3000 make 200
        long seeds = single >= 0 ? 1 : property("cosid.sim.segment-seeds",
                Math.max(1, property("cosid.sim.seeds", 300) / 15));
        long first = single >= 0 ? single : 1;
        long ids = 0;
        long refused = 0;
        long reservations = 0;
        long tails = 0;
        Map<String, Integer> faults = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        for (long seed = first; seed < first + seeds; seed++) {
            SegmentSimulation.Report report = SegmentSimulation.run(seed, Duration.ofSeconds(seconds));
            ids += report.ids();
            refused += report.refused();
            reservations += report.reservations();
            tails += report.tailsReturned();
            report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
            if (!report.violations().isEmpty()) {
                failures.add("seed " + seed + ": " + report.violations().get(0) + "\n  replay: mvn -pl cosid-simulation"
                        + " -am verify -Dsurefire.failIfNoSpecifiedTests=false -Dtest=SegmentSimulationTest"
                        + " -Dcosid.sim.seed=" + seed + " -Dcosid.sim.segment-seconds=" + seconds);
            }
        }
        System.out.println("segment simulation: " + seeds + " seeds x " + seconds + " s virtual; ids issued " + ids
                + ", refused " + refused + ", ranges reserved " + reservations + ", tails handed back " + tails
                + ", seeds with a repeat " + failures.size() + "; faults " + faults);
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds failed:\n" + String.join("\n", failures));
        }
        assertTrue(ids > seeds * 1_000, "the runs issued ids: " + ids);
        assertTrue(tails > 0, "clean closes handed tails back");
        if (single < 0) {
            assertTrue(faults.keySet().containsAll(List.of("segment call applied late, caller gave up",
                    "segment call applied twice", "segment reservation answered with the previous answer",
                    "store call applied, answer lost", "store call lost before applied", "node crashed",
                    "node shut down cleanly")), "every fault was injected: " + faults.keySet());
        }
    }

    @Test
    void aSeedReplaysExactly() {
        SegmentSimulation.Report once = SegmentSimulation.run(7, Duration.ofSeconds(5));
        SegmentSimulation.Report again = SegmentSimulation.run(7, Duration.ofSeconds(5));
        assertEquals(once, again);
    }

    /** A store that forgets one reservation: it hands the range out, then its counter goes back. */
    private static final class ForgetfulStore extends SimStoreDelegate {
        private int reservations;

        ForgetfulStore(LeaseStore store) {
            super(store);
        }

        @Override
        public SegmentRange reserveSegment(String namespace, String name, long size) {
            SegmentRange range = super.reserveSegment(namespace, name, size);
            if (++reservations == 30) {
                super.returnSegmentTail(range, range.first() - 1);
            }
            return range;
        }
    }

    @Test
    void theCheckerCatchesAStoreThatForgetsOneReservation() {
        int caught = 0;
        for (long seed = 1; seed <= 20; seed++) {
            if (!SegmentSimulation.run(seed, Duration.ofSeconds(5), ForgetfulStore::new).violations().isEmpty()) {
                caught++;
            }
        }
        System.out.println("the store that forgets one reservation was caught in " + caught + " of 20 seeds");
        assertTrue(caught > 0, "a store that hands one range out twice went unnoticed in 20 seeds");
    }
}
