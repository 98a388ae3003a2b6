package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cosid.coordination.CoordinationTransports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The elector simulation on a store's transport: the real {@code JdbcCoordinationTransport}, opened by its store
 * URL on an embedded in-memory H2 database (a fresh one per seed), so every mint is the H2 dialect's
 * {@code MERGE} of the role's fence, every lease write and clear its {@code UPDATE ... WHERE fence = ?}, and
 * every read its join, all answered on the simulation's one thread. The faults and the checker are those of
 * {@link ElectorSimulationTest}. Runs {@code cosid.sim.store-elector-seeds} seeds (default 50) of
 * {@code cosid.sim.elector-seconds} virtual seconds each (default 60), or the one seed {@code cosid.sim.seed}.
 */
class StoreElectorSimulationTest {

    private static final AtomicLong DATABASES = new AtomicLong();

    private static long property(String name, long fallback) {
        String value = System.getProperty(name, "");
        return value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    private static ElectorSimulation.Options onH2(ElectorSimulation.Options options) {
        return options.withCluster("the JDBC transport on an in-memory H2", () -> CoordinationTransports.open(
                "jdbc:h2:mem:elector-sim-" + DATABASES.incrementAndGet()));
    }

    @Test
    void electorsOnTheJdbcTransportKeepFencedWritesInOrderAndUnfencedWorkApartAndServeTheRoleWithinTheBound() {
        long seconds = property("cosid.sim.elector-seconds", 60);
        long single = property("cosid.sim.seed", -1);
        long seeds = single >= 0 ? 1 : property("cosid.sim.store-elector-seeds", 50);
        long first = single >= 0 ? single : 1;
        ElectorSimulation.Options options = onH2(single >= 0 ? ElectorSimulation.Options.DEFAULT.withTrace()
                : ElectorSimulation.Options.DEFAULT);
        List<String> failures = new ArrayList<>();
        Map<String, Integer> faults = new TreeMap<>();
        long elections = 0;
        long takeovers = 0;
        long measured = 0;
        long worst = Long.MIN_VALUE;
        long writes = 0;
        long refused = 0;
        long overlapsAfterPause = 0;
        for (long seed = first; seed < first + seeds; seed++) {
            ElectorSimulation.Report report = ElectorSimulation.run(seed, Duration.ofSeconds(seconds), options);
            if (single >= 0) {
                report.trace().forEach(System.out::println);
            }
            elections += report.elections();
            takeovers += report.takeovers();
            measured += report.failoversMeasured();
            worst = Math.max(worst, report.worstFailoverPastBoundMillis());
            writes += report.fencedWrites();
            refused += report.fencedWritesRefused();
            overlapsAfterPause += report.overlapsAfterPause();
            report.faults().forEach((kind, n) -> faults.merge(kind, n, Integer::sum));
            if (!report.violations().isEmpty()) {
                failures.add("seed " + seed + " (" + report.settings() + "): " + report.violations().size()
                        + " violations, the first: " + report.violations().get(0) + "\n  replay: mvn -pl "
                        + "cosid-simulation -am verify -Dsurefire.failIfNoSpecifiedTests=false "
                        + "-Dtest='StoreElectorSimulationTest#electors*' -Dcosid.sim.seed=" + seed
                        + " -Dcosid.sim.elector-seconds=" + seconds);
            }
        }
        System.out.println("elector simulation on the JDBC transport (H2 in memory): " + seeds + " seeds x " + seconds
                + " s virtual; elections " + elections + ", takeovers " + takeovers + "; fenced writes accepted " + writes + ", refused " + refused
                + "; overlaps after a pause (fenced work only) " + overlapsAfterPause + "; failovers measured "
                + measured + ", worst relative to its bound " + worst + " ms; seeds with a violation "
                + failures.size() + "; faults " + faults);
        if (!failures.isEmpty()) {
            fail(failures.size() + " seeds failed:\n" + String.join("\n", failures.subList(0,
                    Math.min(10, failures.size()))));
        }
        assertTrue(worst <= 0, "a failover came " + worst + " ms after its bound");
        if (single < 0) {
            assertTrue(takeovers > seeds, "the faults moved the role around: " + takeovers);
            assertTrue(refused > 0, "a deposed leader's fenced write was refused");
            assertTrue(faults.get("calls lost before they applied") > 0
                    && faults.get("calls applied with the answer lost") > 0, "calls were lost both ways: " + faults);
        }
    }

    @Test
    void aSeedOnTheJdbcTransportReplaysExactlyAndMatchesNoInMemoryRunByChance() {
        ElectorSimulation.Report once = ElectorSimulation.run(7, Duration.ofSeconds(30),
                onH2(ElectorSimulation.Options.DEFAULT.withTrace()));
        ElectorSimulation.Report again = ElectorSimulation.run(7, Duration.ofSeconds(30),
                onH2(ElectorSimulation.Options.DEFAULT.withTrace()));
        assertEquals(once, again);
        assertTrue(once.trace().stream().anyMatch(line -> line.contains("epoch 1:0 minted")),
                "the store's tokens are (fence, 0): " + once.trace().subList(0, Math.min(40, once.trace().size())));
    }

    /**
     * Both transports are faithful, so the same seed drives the electors through the same events on either: every
     * figure of the report agrees, only the tokens differ ({@code 1000:3} in memory, {@code 4:0} from the store).
     */
    @Test
    void everySeedRunsOnTheJdbcTransportExactlyAsOnTheInMemoryOne() {
        for (long seed = 1; seed <= 20; seed++) {
            ElectorSimulation.Report memory = ElectorSimulation.run(seed, Duration.ofSeconds(60),
                    ElectorSimulation.Options.DEFAULT);
            ElectorSimulation.Report store = ElectorSimulation.run(seed, Duration.ofSeconds(60),
                    onH2(ElectorSimulation.Options.DEFAULT));
            assertEquals(List.of(memory.elections(), memory.takeovers(), memory.failoversMeasured(),
                            memory.worstFailoverPastBoundMillis(), memory.fencedWrites(), memory.fencedWritesRefused(),
                            memory.unfencedActions(), memory.overlapsAfterPause(), memory.frozenPastDeadline(),
                            memory.faults(), memory.violations()),
                    List.of(store.elections(), store.takeovers(), store.failoversMeasured(),
                            store.worstFailoverPastBoundMillis(), store.fencedWrites(), store.fencedWritesRefused(),
                            store.unfencedActions(), store.overlapsAfterPause(), store.frozenPastDeadline(),
                            store.faults(), store.violations()), "seed " + seed);
        }
    }
}
