package dev.cosid.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.RuntimeStatus;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.IdPump;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ZooKeeperEnsemble;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** One server of the ensemble killed (SIGKILL) and restarted while a runtime issues ids: the lease holds. */
class ZooKeeperEnsembleTest {

    @RegisterExtension
    static final ServerExtension<ZooKeeperEnsemble> ENSEMBLE = new ServerExtension<>(ZooKeeperEnsemble::started);

    /** Records renewals of one runtime. */
    private static final class Events implements CosIdListener {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final AtomicLong renewals = new AtomicLong();

        @Override
        public void onRenewed(SlotLease lease) {
            renewals.incrementAndGet();
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            lines.add("renewal failed: " + cause.getMessage());
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            lines.add("lost " + lease);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"leader", "follower"})
    void oneServerKilledAndRestartedKeepsTheLeaseAndTheIds(String which) {
        String ns = "ensemble-" + which;
        Events events = new Events();
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace(ns).store(ENSEMBLE.server().url())
                .ttl(Duration.ofSeconds(6)).tolerance(Duration.ofSeconds(1)).maxWait(Duration.ZERO).listener(events)
                .start();
             IdPump pump = IdPump.start(which, runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            int leader = ENSEMBLE.server().leader();
            int victim = which.equals("leader") ? leader : (leader + 1) % ENSEMBLE.server().size();
            ENSEMBLE.server().killAndRestart(victim);
            if (which.equals("leader")) {
                // ZooKeeper does not hand leadership back: another server won the election the kill forced
                assertNotEquals(victim, ENSEMBLE.server().leader());
            }
            long renewed = events.renewals.get();
            Await.until(() -> events.renewals.get() > renewed + 1, Duration.ofSeconds(30),
                    "renewals after the restart; events " + events.lines);
            long issued = pump.issued();
            Await.until(() -> pump.issued() > issued + 1_000, Duration.ofSeconds(10), "ids after the restart");
            assertEquals(RuntimeStatus.State.BOUND, runtime.status().state(), events.lines.toString());
            assertEquals(before.fence(), runtime.lease().fence(), "the lease survived; events " + events.lines);
            pump.close();
            Set<Long> seen = new HashSet<>();
            for (long id : pump.ids()) {
                assertTrue(seen.add(id), "id " + id + " was issued twice");
            }
        }
    }
}
