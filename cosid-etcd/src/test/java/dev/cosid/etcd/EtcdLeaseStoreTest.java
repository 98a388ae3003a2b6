package dev.cosid.etcd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.testkit.servers.EtcdCluster;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.time.Clock;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Round trips per operation, key prefixes, and the errors of bad URLs and unreachable clusters. */
class EtcdLeaseStoreTest {

    @RegisterExtension
    static final ServerExtension<EtcdCluster> CLUSTER = new ServerExtension<>(EtcdCluster::started);

    private static final LeaseTerms TERMS = new LeaseTerms(60_000, 1_000);

    private static EtcdLeaseStore open(String suffix) {
        return (EtcdLeaseStore) LeaseStores.open(CLUSTER.server().url() + suffix);
    }

    /** Runs an operation and returns how many etcd calls it made. */
    private static long trips(EtcdLeaseStore store, Runnable operation) {
        long before = store.roundTrips();
        operation.run();
        return store.roundTrips() - before;
    }

    @Test
    void eachLeaseOperationIsOneTransactionWhileTheStoreKnowsTheSlotsRevision() {
        String ns = "trips-" + UUID.randomUUID().toString().substring(0, 8);
        try (EtcdLeaseStore store = open(""); EtcdLeaseStore other = open("")) {
            store.register(ns, new NamespaceRecord(16, 1_000));
            other.register(ns, new NamespaceRecord(16, 1_000));
            SlotLease[] lease = new SlotLease[1];
            assertEquals(1, trips(store, () -> lease[0] = store.acquire(ns, 0, Owner.of("a"), TERMS).orElseThrow()));
            assertEquals(1, trips(store, () -> lease[0] = store.renew(lease[0], TERMS).orElseThrow()));
            assertEquals(1, trips(store, () -> assertTrue(store.release(lease[0], lease[0].floor()))));
            assertEquals(1, trips(store, () -> store.read(ns)));
            // the other store last saw nothing of slot 0: its guess fails, the else branch brings the record
            assertEquals(2, trips(other, () -> lease[0] = other.acquire(ns, 0, Owner.of("b"), TERMS).orElseThrow()));
            assertEquals(1, trips(other, () -> lease[0] = other.renew(lease[0], TERMS).orElseThrow()));
            // a stale guess (free) fails the compare, and the else branch shows the slot live: refused
            assertEquals(1, trips(store, () -> assertTrue(store.acquire(ns, 0, Owner.of("a"), TERMS).isEmpty())));
            // a guess that refuses (live) is never trusted: one read confirms it before the answer
            assertEquals(1, trips(store, () -> assertTrue(store.acquire(ns, 0, Owner.of("a"), TERMS).isEmpty())));
        }
    }

    @Test
    void aRevisionCountedAgainAfterTheClusterLostItsDataNeverRenewsAForgottenLease() throws Exception {
        String ns = "aba-" + UUID.randomUUID().toString().substring(0, 8);
        try (EtcdLeaseStore holder = open("")) {
            holder.register(ns, new NamespaceRecord(16, 1_000));
            SlotLease forgotten = holder.acquire(ns, 5, Owner.of("holder"), TERMS).orElseThrow();
            long revision = revision(ns, 5);
            CLUSTER.server().restartEmpty();
            try (EtcdLeaseStore next = open("");
                 io.etcd.jetcd.Client raw = io.etcd.jetcd.Client.builder().endpoints(endpoints()).build()) {
                next.register(ns, new NamespaceRecord(16, 1_000));
                // count the new cluster's revisions up to the one the holder remembers, then take its slot there
                io.etcd.jetcd.ByteSequence filler = io.etcd.jetcd.ByteSequence.from("/filler", StandardCharsets.UTF_8);
                long at = raw.getKVClient().get(filler).get(10, TimeUnit.SECONDS).getHeader().getRevision();
                while (at < revision - 1) {
                    at = raw.getKVClient().put(filler, filler).get(10, TimeUnit.SECONDS).getHeader().getRevision();
                }
                SlotLease taken = next.acquire(ns, 5, Owner.of("next"), TERMS).orElseThrow();
                // the holder's connections to the stopped members fail once; wait until it reaches the cluster
                dev.cosid.testkit.Await.until(() -> answers(holder, ns), java.time.Duration.ofSeconds(20),
                        "the holder reaching the restarted cluster");
                assertEquals(revision, revision(ns, 5), "the slot's key holds the remembered revision again");
                assertTrue(holder.renew(forgotten, TERMS).isEmpty(), "a forgotten lease was renewed");
                assertFalse(holder.release(forgotten, forgotten.floor()));
                assertEquals(taken.owner(), next.read(ns).bySlot().get(5).owner());
            }
        }
    }

    private static boolean answers(EtcdLeaseStore store, String ns) {
        try {
            store.namespace(ns);
            return true;
        } catch (LeaseStoreException e) {
            return false;
        }
    }

    private static String[] endpoints() {
        return java.util.Arrays.stream(CLUSTER.server().url().substring("etcd://".length()).split(","))
                .map(server -> "http://" + server).toArray(String[]::new);
    }

    private static long revision(String ns, int slot) throws Exception {
        try (io.etcd.jetcd.Client raw = io.etcd.jetcd.Client.builder().endpoints(endpoints()).build()) {
            return raw.getKVClient().get(io.etcd.jetcd.ByteSequence.from("/cosid/namespaces/" + ns + "/slots/" + slot,
                    StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS).getKvs().get(0).getModRevision();
        }
    }

    @Test
    void aPrefixKeepsNamespacesApart() {
        String ns = "prefixed-" + UUID.randomUUID().toString().substring(0, 8);
        try (EtcdLeaseStore plain = open(""); EtcdLeaseStore prefixed = open("/apps/ids/")) {
            prefixed.register(ns, new NamespaceRecord(16, 1_000));
            prefixed.acquire(ns, 3, Owner.of("a"), TERMS).orElseThrow();
            assertTrue(plain.namespace(ns).isEmpty());
            assertEquals(3, prefixed.read(ns).slots().get(0).slot());
            assertTrue(plain.read(ns).slots().isEmpty());
        }
    }

    @Test
    void badUrlsAreRefusedNamingTheOffendingPart() {
        assertEquals("store URL 'etcd://' names no server; use etcd://HOST:PORT[,HOST:PORT...][/PREFIX]",
                assertThrows(IllegalArgumentException.class, () -> LeaseStores.open("etcd://")).getMessage());
        assertEquals("'127.0.0.1' in store URL 'etcd://127.0.0.1:2379,127.0.0.1' is not HOST:PORT; use "
                + "etcd://HOST:PORT[,HOST:PORT...][/PREFIX]", assertThrows(IllegalArgumentException.class,
                        () -> LeaseStores.open("etcd://127.0.0.1:2379,127.0.0.1")).getMessage());
        assertEquals("the prefix '/apps/../x' of store URL 'etcd://127.0.0.1:2379/apps/../x' is not a path of names "
                + "of A-Z a-z 0-9 . _ - (and neither . nor ..)", assertThrows(IllegalArgumentException.class,
                        () -> LeaseStores.open("etcd://127.0.0.1:2379/apps/../x")).getMessage());
        String noPassword = assertThrows(IllegalArgumentException.class,
                () -> LeaseStores.open("etcd://SECRET123@127.0.0.1:2379")).getMessage();
        assertFalse(noPassword.contains("SECRET123"), noPassword);
        assertTrue(noPassword.contains("has a user without a password"), noPassword);
    }

    @Test
    void anUnreachableClusterFailsWithinTheBoundNamingTheAddressButNotThePassword() {
        int closed = ServerProcess.freePort();
        Clock clock = Clock.system();
        long started = clock.monotonicNanos();
        LeaseStoreException failure = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open("etcd://u:SECRET123@127.0.0.1:" + closed));
        long millis = (clock.monotonicNanos() - started) / 1_000_000;
        assertTrue(millis < EtcdLeaseStore.CONNECT_TIMEOUT.toMillis() + 3_000, millis + " ms");
        assertTrue(failure.getMessage().startsWith("cannot reach etcd://u:***@127.0.0.1:" + closed), failure.getMessage());
        assertFalse(failure.getMessage().contains("SECRET123"), failure.getMessage());
    }
}
