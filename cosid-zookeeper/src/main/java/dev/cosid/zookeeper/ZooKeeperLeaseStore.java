package dev.cosid.zookeeper;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.LeaseTransitions;
import dev.cosid.lease.Names;
import dev.cosid.lease.NamespaceLimits;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotRecordCodec;
import dev.cosid.lease.SlotTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * A lease store in ZooKeeper: one znode per slot, changed only by a write conditioned on the znode
 * version read just before, and judged by the server's clock: the modification time ZooKeeper stamps
 * on a write to the namespace's clock znode, never the client's clock.
 *
 * <p>An operation is three round trips: stamp the clock, read the slot, write it if its version is
 * unchanged. A lost race is a failed version check and changes nothing.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("zookeeper://zk1:2181,zk2:2181/ids");
 * }</pre>
 */
public final class ZooKeeperLeaseStore implements LeaseStore {

    static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    /** The longest one operation may take before a keeper's terms set a shorter bound. */
    static final long DEFAULT_BOUND_MILLIS = 15_000;
    /**
     * The shortest bound: an operation is up to three quorum writes and reads, which a loaded machine takes
     * hundreds of ms for; a sixth of a short ttl would fail them while the ensemble is healthy.
     */
    static final long MIN_BOUND_MILLIS = 1_000;
    private static final int VERSION_RETRIES = 8;

    /** Runs the operations, each bounded by {@link #boundMillis}. */
    private final java.util.concurrent.ExecutorService calls = java.util.concurrent.Executors.newCachedThreadPool(
            task -> {
                Thread thread = new Thread(task, "cosid-zookeeper-call");
                thread.setDaemon(true);
                return thread;
            });
    /**
     * How long one operation may take: {@link #DEFAULT_BOUND_MILLIS} until a keeper's terms arrive, then a sixth
     * of their ttl and at least {@link #MIN_BOUND_MILLIS}, so a server cut off from its quorum does not hold a
     * keeper past ttl/3 (for a ttl of 3 s and more).
     */
    private volatile long boundMillis = DEFAULT_BOUND_MILLIS;

    private final CuratorFramework client;
    private final String description;
    private final NamespaceLimits limits = new NamespaceLimits();

    /**
     * Connects.
     *
     * @param connectString the servers, {@code host:port[,host:port...]}, without a chroot
     * @param chroot the path every znode lives under, such as {@code myapp}, created if missing; or {@code null}
     * @param description the URL with its secrets masked, for messages
     */
    ZooKeeperLeaseStore(String connectString, String chroot, String description) {
        this.description = description;
        // Curator's namespace, unlike a chroot in the connect string, creates the path on first use
        this.client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .namespace(chroot)
                .connectionTimeoutMs(CONNECT_TIMEOUT_MILLIS)
                .sessionTimeoutMs(10_000)
                .retryPolicy(new RetryNTimes(2, 200))
                .build();
        client.start();
        boolean connected;
        try {
            connected = client.blockUntilConnected(CONNECT_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connected = false;
        }
        if (!connected) {
            client.close();
            throw new LeaseStoreException("cannot reach " + description + " within " + CONNECT_TIMEOUT_MILLIS + " ms");
        }
    }

    private static String namespacePath(String namespace) {
        return "/cosid/namespaces/" + namespace;
    }

    private static String clockPath(String namespace) {
        return namespacePath(namespace) + "/clock";
    }

    private static String slotsPath(String namespace) {
        return namespacePath(namespace) + "/slots";
    }

    /** A znode name for an id space: {@code n-} and the URL-encoded name, so that no name is special to ZooKeeper. */
    private static String layoutPath(String namespace, String name) {
        return namespacePath(namespace) + "/layouts/n-" + java.net.URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    private static String slotPath(String namespace, int slot) {
        return slotsPath(namespace) + "/" + slot;
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        Namespaces.require(namespace);
        NamespaceRecord stored = call("register namespace '" + namespace + "'", () -> {
            try {
                client.create().creatingParentsIfNeeded().forPath(namespacePath(namespace),
                        bytes(proposed.limit() + "," + proposed.toleranceMillis()));
            } catch (KeeperException.NodeExistsException existing) {
                // registered before: the stored record wins
            }
            client.create().orSetData().forPath(clockPath(namespace));
            client.create().orSetData().forPath(slotsPath(namespace));
            return readNamespace(namespace).orElseThrow();
        });
        limits.remember(namespace, stored);
        return stored;
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        Namespaces.require(namespace);
        return call("read namespace '" + namespace + "'", () -> readNamespace(namespace));
    }

    private Optional<NamespaceRecord> readNamespace(String namespace) throws Exception {
        byte[] data;
        try {
            data = client.getData().forPath(namespacePath(namespace));
        } catch (KeeperException.NoNodeException missing) {
            return Optional.empty();
        }
        String[] fields = text(data).split(",");
        try {
            return Optional.of(new NamespaceRecord(Integer.parseInt(fields[0]), Long.parseLong(fields[1])));
        } catch (RuntimeException e) {
            throw new LeaseStoreException("the record of namespace '" + namespace + "' in " + description
                    + " is corrupt: '" + text(data) + "'");
        }
    }

    @Override
    public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        Namespaces.require(namespace);
        Names.require(name);
        String path = layoutPath(namespace, name);
        return call("record the layout of id space '" + name + "' of namespace '" + namespace + "'", () -> {
            try {
                client.create().creatingParentsIfNeeded().forPath(path, bytes(proposed.text()));
                return proposed;
            } catch (KeeperException.NodeExistsException existing) {
                String text = text(client.getData().forPath(path));
                try {
                    return LayoutRecord.parse(text);
                } catch (IllegalArgumentException e) {
                    throw new LeaseStoreException("the layout of id space '" + name + "' of namespace '" + namespace
                            + "' in " + description + " is corrupt: " + e.getMessage());
                }
            }
        });
    }

    /** Returns the server's time: the modification time of a write to the clock znode. */
    private long storeNow(String namespace) throws Exception {
        return client.setData().forPath(clockPath(namespace)).getMtime();
    }

    @Override
    public SlotTable read(String namespace) {
        Namespaces.require(namespace);
        return call("read the slots of namespace '" + namespace + "'", () -> {
            long now;
            List<String> children;
            try {
                now = storeNow(namespace);
                children = client.getChildren().forPath(slotsPath(namespace));
            } catch (KeeperException.NoNodeException unregistered) {
                return new SlotTable(namespace, client.getZookeeperClient().getZooKeeper()
                        .exists("/", false).getMtime(), List.of());
            }
            List<SlotRecord> records = new ArrayList<>();
            for (String child : children) {
                int slot = Integer.parseInt(child);
                try {
                    records.add(SlotRecordCodec.decode(slot, text(client.getData().forPath(slotPath(namespace, slot)))));
                } catch (KeeperException.NoNodeException vanished) {
                    // deleted between listing and reading: no record
                }
            }
            records.sort(Comparator.comparingInt(SlotRecord::slot));
            return new SlotTable(namespace, now, records);
        });
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        limits.requireSlot(namespace, slot, this::namespace);
        boundMillis = Math.max(MIN_BOUND_MILLIS, terms.callBoundMillis(DEFAULT_BOUND_MILLIS));
        return call("acquire slot " + slot + " of namespace '" + namespace + "'", () ->
                update(namespace, slot, now -> LeaseTransitions.fresh(slot, now, terms), false,
                        (current, now) -> LeaseTransitions.acquire(current, owner, now, terms)));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        boundMillis = Math.max(MIN_BOUND_MILLIS, terms.callBoundMillis(DEFAULT_BOUND_MILLIS));
        return call("renew " + lease, () -> update(lease.namespace(), lease.slot(), null, true,
                (current, now) -> LeaseTransitions.renew(current, lease.owner(), lease.fence(), now, terms)));
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        return call("release " + lease, () -> update(lease.namespace(), lease.slot(), null, true,
                (current, now) -> LeaseTransitions.release(current, lease.owner(), lease.fence(), lastIssuedMillis)))
                .isPresent();
    }

    /**
     * Applies a transition with a versioned write. An acquire gives up on a lost race; a renewal or
     * release, which only its holder can make, reads again after a concurrent failed attempt.
     */
    private Optional<SlotLease> update(String namespace, int slot, java.util.function.LongFunction<SlotRecord> absent,
                                       boolean retryOnRace, Transition transition) throws Exception {
        String path = slotPath(namespace, slot);
        for (int attempt = 0; attempt < VERSION_RETRIES; attempt++) {
            long now;
            try {
                now = storeNow(namespace);
            } catch (KeeperException.NoNodeException namespaceGone) {
                if (absent == null) {
                    return Optional.empty(); // a renewal or release in a namespace that vanished finds no lease
                }
                throw namespaceGone;
            }
            Stat stat = new Stat();
            SlotRecord current;
            try {
                current = SlotRecordCodec.decode(slot, text(client.getData().storingStatIn(stat).forPath(path)));
            } catch (KeeperException.NoNodeException missing) {
                if (absent == null) {
                    return Optional.empty();
                }
                current = null;
            }
            Optional<SlotRecord> next = transition.apply(current != null ? current : absent.apply(now), now);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            try {
                if (current == null) {
                    client.create().withMode(CreateMode.PERSISTENT).forPath(path, bytes(SlotRecordCodec.encode(next.get())));
                } else {
                    client.setData().withVersion(stat.getVersion()).forPath(path, bytes(SlotRecordCodec.encode(next.get())));
                }
                // only an acquire passes absent, and only it can take a slot over from an expired holder
                boolean takenOver = absent != null && current != null && LeaseTransitions.takesOver(current);
                return Optional.of(next.get().toLease(namespace, now, takenOver));
            } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException race) {
                if (!retryOnRace) {
                    return Optional.empty();
                }
            }
        }
        throw new LeaseStoreException("slot " + slot + " of namespace '" + namespace + "' kept changing during "
                + VERSION_RETRIES + " attempts");
    }

    @FunctionalInterface
    private interface Transition {
        Optional<SlotRecord> apply(SlotRecord current, long now);
    }

    /** One operation's work on the client, run by {@link #call(String, ZkWork)}. */
    @FunctionalInterface
    interface ZkWork<T> {
        T run() throws Exception;
    }

    /**
     * Runs one operation within the bound: on a thread of the store's, so a server cut off from its quorum (whose
     * calls Curator retries up to its connection timeout each) fails the call in time. An operation given up on
     * may still complete: a renewal or acquisition the keeper does not count only makes others wait longer, and
     * a reservation it does not count leaves its ids unused.
     */
    <T> T call(String what, ZkWork<T> work) {
        return call(what, boundMillis, work);
    }

    /** Returns the store's client, for the leadership transport, which runs its work through {@link #call}. */
    CuratorFramework client() {
        return client;
    }

    /**
     * Runs one segment operation within {@link #DEFAULT_BOUND_MILLIS}: a reservation that loses races to other
     * writers reads and writes again, and runs in the background of the ids it refills, not in a keeper's time.
     */
    private <T> T segmentCall(String what, ZkWork<T> work) {
        return call(what, DEFAULT_BOUND_MILLIS, work);
    }

    private <T> T call(String what, long bound, ZkWork<T> work) {
        java.util.concurrent.Future<T> future;
        try {
            future = calls.submit(work::run);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new LeaseStoreException("cannot " + what + " in " + description + ": the store is closed", e);
        }
        try {
            return future.get(bound, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            future.cancel(true);
            throw new LeaseStoreException("cannot " + what + " in " + description + ": no answer within " + bound
                    + " ms", e);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new LeaseStoreException("interrupted while trying to " + what + " in " + description, e);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof LeaseStoreException || cause instanceof IllegalArgumentException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof InterruptedException) {
                throw new LeaseStoreException("interrupted while trying to " + what + " in " + description, cause);
            }
            throw new LeaseStoreException("cannot " + what + " in " + description + ": " + cause.getMessage(), cause);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] data) {
        return data == null ? "" : new String(data, StandardCharsets.UTF_8);
    }

    /** How often a segment write that lost a race to another writer reads the counter again. */
    private static final int SEGMENT_ATTEMPTS = 1_000;

    private static String segmentsPath(String namespace) {
        return namespacePath(namespace) + "/segments";
    }

    /** A segment counter's znode: {@code n-} and the URL-encoded name, as for layouts. */
    private static String segmentPath(String namespace, String name) {
        return segmentsPath(namespace) + "/n-" + java.net.URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    @Override
    public SegmentRange reserveSegment(String namespace, String name, long size) {
        Namespaces.requireSegment(namespace, name);
        if (size < 1) {
            throw new IllegalArgumentException("a segment reservation takes at least 1 id, not " + size);
        }
        long last = updateSegment(namespace, name, "reserve " + size + " ids of segment '" + name + "' of namespace '"
                + namespace + "'", current -> Math.addExact(current, size));
        return new SegmentRange(namespace, name, last - size + 1, last);
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        Namespaces.requireSegment(namespace, name);
        if (atLeast < 0) {
            throw new IllegalArgumentException("a segment counter is raised to 0 or more, not " + atLeast);
        }
        return updateSegment(namespace, name, "raise segment '" + name + "' of namespace '" + namespace + "' to "
                + atLeast, current -> Math.max(current, atLeast));
    }

    /**
     * Moves a counter with one multi-op: a check that the namespace znode exists and a write of the counter
     * conditioned on the version read just before (or its creation). A lost race reads again. A retried write
     * whose first attempt was applied finds the version moved and reserves afresh: the first range is wasted,
     * never handed out twice.
     */
    private long updateSegment(String namespace, String name, String what,
                               java.util.function.LongUnaryOperator change) {
        String path = segmentPath(namespace, name);
        Optional<Long> result = segmentCall(what, () -> {
            for (int attempt = 0; attempt < SEGMENT_ATTEMPTS; attempt++) {
                Stat stat = new Stat();
                Long current;
                try {
                    current = parseCounter(namespace, name, client.getData().storingStatIn(stat).forPath(path));
                } catch (KeeperException.NoNodeException absent) {
                    current = null;
                }
                long next;
                try {
                    next = change.applyAsLong(current == null ? 0 : current);
                } catch (ArithmeticException full) {
                    throw new LeaseStoreException("segment '" + name + "' of namespace '" + namespace + "' stands at "
                            + current + ": the reservation would pass the largest id " + Long.MAX_VALUE);
                }
                byte[] data = bytes(Long.toString(next));
                try {
                    client.transaction().forOperations(
                            client.transactionOp().check().forPath(namespacePath(namespace)),
                            current == null
                                    ? client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, data)
                                    : client.transactionOp().setData().withVersion(stat.getVersion()).forPath(path, data));
                    return Optional.of(next);
                } catch (KeeperException.NoNodeException missing) {
                    if (client.checkExists().forPath(namespacePath(namespace)) == null) {
                        return Optional.<Long>empty();
                    }
                    try {
                        // a namespace registered before segment counters existed has no parent znode yet
                        client.create().withMode(CreateMode.PERSISTENT).forPath(segmentsPath(namespace));
                    } catch (KeeperException.NodeExistsException made) {
                        // made by another writer
                    }
                } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException race) {
                    // another writer moved the counter first: read it again
                }
            }
            throw new LeaseStoreException("segment '" + name + "' of namespace '" + namespace + "' kept changing "
                    + "during " + SEGMENT_ATTEMPTS + " attempts");
        });
        return result.orElseThrow(() -> limits.missing(namespace, description));
    }

    private Long parseCounter(String namespace, String name, byte[] data) {
        try {
            return Long.parseLong(text(data));
        } catch (NumberFormatException e) {
            throw new LeaseStoreException("the counter of segment '" + name + "' of namespace '" + namespace + "' in "
                    + description + " is corrupt: '" + text(data) + "'");
        }
    }

    @Override
    public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        Namespaces.requireSegment(range.namespace(), range.name());
        if (lastIssued < range.first() - 1 || lastIssued > range.last()) {
            throw new IllegalArgumentException("last issued id " + lastIssued + " lies outside " + range);
        }
        String path = segmentPath(range.namespace(), range.name());
        return segmentCall("return the tail of " + range, () -> {
            Stat stat = new Stat();
            try {
                if (parseCounter(range.namespace(), range.name(), client.getData().storingStatIn(stat).forPath(path))
                        != range.last()) {
                    return false;
                }
                client.transaction().forOperations(
                        client.transactionOp().check().forPath(namespacePath(range.namespace())),
                        client.transactionOp().setData().withVersion(stat.getVersion())
                                .forPath(path, bytes(Long.toString(lastIssued))));
                return true;
            } catch (KeeperException.NoNodeException | KeeperException.BadVersionException changed) {
                return false;
            }
        });
    }

    @Override
    public java.util.SortedMap<String, Long> segments(String namespace) {
        Namespaces.require(namespace);
        return segmentCall("read the segments of namespace '" + namespace + "'", () -> {
            java.util.SortedMap<String, Long> counters = new java.util.TreeMap<>();
            List<String> children;
            try {
                children = client.getChildren().forPath(segmentsPath(namespace));
            } catch (KeeperException.NoNodeException none) {
                return counters;
            }
            for (String child : children) {
                String name = java.net.URLDecoder.decode(child.substring(2), StandardCharsets.UTF_8);
                try {
                    counters.put(name, parseCounter(namespace, name,
                            client.getData().forPath(segmentsPath(namespace) + "/" + child)));
                } catch (KeeperException.NoNodeException vanished) {
                    // deleted between listing and reading: no counter
                }
            }
            return counters;
        });
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        calls.shutdownNow();
        client.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperLeaseStore[" + description + "]";
    }
}
