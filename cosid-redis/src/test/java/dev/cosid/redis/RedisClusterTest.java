package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.RuntimeStatus;
import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.IdPump;
import dev.cosid.testkit.servers.RedisCluster;
import dev.cosid.testkit.servers.ServerExtension;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Redis Cluster with a password: a namespace in one hash slot, a resharding and failovers while a
 * runtime issues ids, and the URL's errors.
 */
class RedisClusterTest {

    private static final String PASSWORD = "cluster-s3cret";

    static {
        QuietLettuce.install();
    }

    @RegisterExtension
    static final ServerExtension<RedisCluster> CLUSTER = new ServerExtension<>(() -> RedisCluster.started(PASSWORD));

    private static String slotsKey(String namespace) {
        return "cosid:{" + namespace + "}:slots";
    }

    /** Records renewals and failures of one runtime. */
    private static final class Events implements CosIdListener {
        final List<String> lines = new CopyOnWriteArrayList<>();
        final AtomicLong renewals = new AtomicLong();
        final AtomicLong failures = new AtomicLong();

        @Override
        public void onRenewed(SlotLease lease) {
            renewals.incrementAndGet();
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            failures.incrementAndGet();
            lines.add("renewal failed: " + cause.getMessage());
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            lines.add("lost " + lease);
        }
    }

    private static CosIdRuntime runtime(String namespace, Duration ttl, Events events) {
        return CosIdRuntime.builder().namespace(namespace).store(CLUSTER.server().url()).ttl(ttl)
                .tolerance(Duration.ofSeconds(1)).maxWait(Duration.ZERO).listener(events).start();
    }

    private static void assertDistinct(long[] ids) {
        Set<Long> seen = new HashSet<>();
        for (long id : ids) {
            assertTrue(seen.add(id), "id " + id + " was issued twice");
        }
    }

    /** Waits for a renewal after now and more ids, then checks the lease is the one held before. */
    private static void assertKeepsRenewingAndIssuing(CosIdRuntime runtime, SlotLease before, Events events,
                                                      IdPump pump) {
        long renewed = events.renewals.get();
        Await.until(() -> events.renewals.get() > renewed + 1, Duration.ofSeconds(30),
                "renewals after the change; events " + events.lines);
        long issued = pump.issued();
        Await.until(() -> pump.issued() > issued + 1_000, Duration.ofSeconds(10), "ids after the change");
        assertEquals(RuntimeStatus.State.BOUND, runtime.status().state(), events.lines.toString());
        assertEquals(before.fence(), runtime.lease().fence(), "the lease survived; events " + events.lines);
        assertEquals(before.slot(), runtime.lease().slot());
    }

    @Test
    void aNamespaceKeepsAllItsKeysInOneHashSlotOnOnePrimary() {
        String ns = "one-slot";
        try (LeaseStore store = LeaseStores.open(CLUSTER.server().url())) {
            assertTrue(store.failoverMayStepBack(), "a cluster's replicas are asynchronous, its failover automatic");
            store.register(ns, new NamespaceRecord(16, 1_000));
            store.registerLayout(ns, "order", new LayoutRecord(1_577_203_200_000L, 1, 41, 10, 12));
            store.acquire(ns, 3, Owner.of("a"), new LeaseTerms(60_000, 1_000)).orElseThrow();
        }
        RedisCluster cluster = CLUSTER.server();
        int slot = cluster.slotOf(slotsKey(ns));
        for (String key : List.of("cosid:{" + ns + "}:namespace", "cosid:{" + ns + "}:layouts", slotsKey(ns))) {
            assertEquals(slot, cluster.slotOf(key), key);
        }
        RedisClusterLeaseStoreContractTest.cluster(cluster, commands ->
                assertEquals(3, commands.clusterCountKeysInSlot(slot), "keys in slot " + slot));
    }

    @Test
    void aReshardingOfTheNamespacesSlotToAnotherPrimaryLosesNoLeaseAndNoRenewal() {
        String ns = "resharded";
        Events events = new Events();
        try (CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(3), events);
             IdPump pump = IdPump.start("resharded", runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            int from = CLUSTER.server().primaryOf(slotsKey(ns));
            // each step lasts past a renewal (every second): one while migrating, one while ASK redirects
            int to = CLUSTER.server().moveSlot(slotsKey(ns), () -> {
                long renewed = events.renewals.get();
                Await.until(() -> events.renewals.get() > renewed, Duration.ofSeconds(10), "a renewal mid-move");
            });
            assertNotEquals(from, to);
            assertKeepsRenewingAndIssuing(runtime, before, events, pump);
            assertEquals(0, events.failures.get(), "a resharding fails no renewal: " + events.lines);
            pump.close();
            assertDistinct(pump.ids());
        }
    }

    @Test
    void aPrimaryKilledAndItsReplicaPromotedByTheClusterKeepsTheLease() {
        String ns = "killed-primary";
        Events events = new Events();
        try (CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(6), events);
             IdPump pump = IdPump.start("killed", runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            int from = CLUSTER.server().primaryOf(slotsKey(ns));
            int to = CLUSTER.server().killPrimaryAndPromote(slotsKey(ns));
            assertNotEquals(from, to);
            assertEquals(to, CLUSTER.server().primaryOf(slotsKey(ns)));
            assertKeepsRenewingAndIssuing(runtime, before, events, pump);
            pump.close();
            assertDistinct(pump.ids());
        }
    }

    @Test
    void aManualFailoverHandsTheSlotToTheReplicaWithoutLosingARenewal() {
        String ns = "manual-failover";
        Events events = new Events();
        try (CosIdRuntime runtime = runtime(ns, Duration.ofSeconds(3), events);
             IdPump pump = IdPump.start("failover", runtime.snowflake("order"))) {
            SlotLease before = runtime.lease();
            Await.until(() -> pump.issued() > 1_000, Duration.ofSeconds(10), "ids");
            int from = CLUSTER.server().primaryOf(slotsKey(ns));
            int to = CLUSTER.server().failover(slotsKey(ns));
            assertNotEquals(from, to);
            assertKeepsRenewingAndIssuing(runtime, before, events, pump);
            pump.close();
            assertDistinct(pump.ids());
        }
    }

    @Test
    void aWrongPasswordIsReportedAsFailedAuthenticationAndHidden() {
        String url = CLUSTER.server().url().replace(PASSWORD, "SECRET-wrong");
        LeaseStoreException refused = assertThrows(LeaseStoreException.class, () -> LeaseStores.open(url));
        assertTrue(refused.getMessage().startsWith("authentication failed at redis-cluster://:***@127.0.0.1:"),
                refused.getMessage());
        assertFalse(refused.getMessage().contains("SECRET-wrong"), refused.getMessage());
    }

    @Test
    void anUnreachableClusterIsNamedWithItsPasswordHidden() {
        int port = dev.cosid.testkit.servers.ServerProcess.freePort();
        LeaseStoreException unreachable = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open("redis-cluster://:SECRET-pw@127.0.0.1:" + port));
        assertTrue(unreachable.getMessage().startsWith("cannot reach the Redis Cluster redis-cluster://:***@127.0.0.1:"
                + port), unreachable.getMessage());
        assertTrue(unreachable.getMessage().contains("Connection refused"), unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("SECRET-pw"), unreachable.getMessage());
    }

    @Test
    void malformedUrlsNameTheOffendingPartAndHideThePassword() {
        assertRefused("redis-cluster://", "names no node");
        assertRefused("redis-cluster://:SECRET-pw@", "names no node");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1", "node '127.0.0.1' in Redis Cluster URL "
                + "'redis-cluster://:***@127.0.0.1' is not host:port");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1:7000,", "node '' in Redis Cluster URL");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1:70000", "port '70000' of node '127.0.0.1:70000'");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1:x", "port 'x' of node '127.0.0.1:x'");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1:7000/0", "has '/0' after its nodes");
        assertRefused("redis-cluster://:SECRET-pw@127.0.0.1:7000?waitReplicas=1", "has '?waitReplicas=1' after");
        assertRefused("redis-cluster://SECRET-pw@127.0.0.1:7000", "user info without a password");
    }

    private static void assertRefused(String url, String expected) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(url));
        assertTrue(refused.getMessage().contains(expected), refused.getMessage());
        assertFalse(refused.getMessage().contains("SECRET-pw"), refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
    }
}
