package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A PostgreSQL primary and its streaming standby under a real partition: the primary and client A on side A,
 * the standby and client B on side B, both clients on one slot with both guards, a two-host URL asking for the
 * primary, the standby promoted with {@code pg_ctl promote} once the sides are cut. With a synchronous standby
 * A's commits cannot complete once it is cut off: A stops at its confirmed ceiling and B takes the slot over on
 * the promoted standby, no id twice. The asynchronous standby, under the unsafe name, is the negative control.
 */
class PostgresPartitionTest {

    private static final Path RUNS = Path.of("target", "partition-runs");

    @Test
    void aSynchronousStandbyRepeatsNoIdAndTheCutOffClientStopsAtItsCeiling() {
        PartitionRun.rounds("postgres-synchronous", round -> {
            PartitionRun.Result result = run("postgres-synchronous-" + round, true, "");
            assertEquals(0, result.repeats(), result.toString());
            assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the promotion: " + result);
            assertEquals(0, result.pastCeiling("a"), "A stops at its confirmed ceiling: " + result);
            return result;
        });
    }

    @Test
    void theAsynchronousStandbyUnderTheUnsafeNameRepeatsIds() {
        PartitionRun.rounds("postgres-async-unsafe", round -> {
            PartitionRun.Result result = run("postgres-async-unsafe-" + round, false,
                    "allowRepeatedIdsOnPartition=true");
            assertTrue(result.of("b").after(result.cut()) > 0, "B issues after the promotion: " + result);
            assertTrue(result.pastCeiling("a") > 0, "A keeps issuing on the old primary: " + result);
            assertTrue(result.repeats() > 0, "the negative control repeats ids: " + result);
            return result;
        });
    }

    private static PartitionRun.Result run(String name, boolean synchronous, String options) {
        try (NetworkPartition net = NetworkPartition.created();
                PostgresSetup postgres = PostgresSetup.started(net, synchronous)) {
            PartitionRun run = new PartitionRun(net, RUNS.resolve(name));
            String url = postgres.url(options);
            PartitionRun.Client a = run.start("a", net.a(), url);
            run.awaitIssuing(a, Duration.ofSeconds(60));
            PartitionRun.Client b = run.start("b", net.b(), url);
            run.awaitWaiting(b, Duration.ofSeconds(60));
            run.cut();
            postgres.promote();
            run.awaitIssuing(b, Duration.ofSeconds(60));
            PartitionRun.Result result = run.finish();
            System.out.println(name + ": " + result + "; backends of the old primary waiting on the standby: "
                    + postgres.waitingOnSyncRep());
            if (synchronous) {
                // the clients closed their runtimes, which cancel a commit still waiting for the cut-off standby
                Await.until(() -> postgres.waitingOnSyncRep() == 0, Duration.ofSeconds(5),
                        () -> "no backend of the old primary left waiting on the cut-off standby once the clients "
                                + "closed: " + postgres.waitingOnSyncRep() + " wait; " + result);
            }
            return result;
        }
    }
}
