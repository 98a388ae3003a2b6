package dev.cosid.zookeeper;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.LeaseTransitions;
import dev.cosid.lease.NamespaceLimits;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
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
    private static final int VERSION_RETRIES = 8;

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
        LayoutRecord.requireName(name);
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
        return call("acquire slot " + slot + " of namespace '" + namespace + "'", () ->
                update(namespace, slot, now -> LeaseTransitions.fresh(slot, now, terms), false,
                        (current, now) -> LeaseTransitions.acquire(current, owner, now, terms)));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
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

    @FunctionalInterface
    private interface ZkWork<T> {
        T run() throws Exception;
    }

    private <T> T call(String what, ZkWork<T> work) {
        try {
            return work.run();
        } catch (LeaseStoreException | IllegalArgumentException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseStoreException("interrupted while trying to " + what + " in " + description, e);
        } catch (Exception e) {
            throw new LeaseStoreException("cannot " + what + " in " + description + ": " + e.getMessage(), e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] data) {
        return data == null ? "" : new String(data, StandardCharsets.UTF_8);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperLeaseStore[" + description + "]";
    }
}
