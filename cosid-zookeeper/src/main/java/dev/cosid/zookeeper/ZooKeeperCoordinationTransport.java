package dev.cosid.zookeeper;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleRecord;
import dev.cosid.coordination.StoreLocks;
import dev.cosid.lease.LeaseStoreException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Leadership in ZooKeeper, the ensemble the ids use, opened by the same URL. A role is one znode,
 * {@code /cosid/leader/roles/n-ROLE} (the role URL-encoded) under the URL's chroot, holding the whole
 * {@link RoleRecord}: fence, sequence, lease and registrations. Every change is the record's transition written
 * with {@code setData} at the version just read (or a {@code create} for a new role): one atomic conditional
 * update, and a lost race changes nothing and reads again.
 *
 * <ul>
 *   <li>{@link #acquireEpoch} writes the record with its fence one higher: the token is {@code (fence, 0)},
 *       strictly greater than every token minted before, never reused while a quorum survives.</li>
 *   <li>{@link #writeLease} and {@link #clearLease} write only when the record read names the writer's fence;
 *       the version check makes that read the record the write replaces.</li>
 *   <li>{@link #readRoleRecords} is one read of one znode, so one snapshot, after a {@code sync} that brings the
 *       server the client is connected to up to date with the leader: a standby never decides on a lease older
 *       than the newest committed one.</li>
 * </ul>
 *
 * <p>The lease's instants are the writer's, as the client granted them; ZooKeeper stamps its leader's clock on
 * every write as the znode's {@code mtime}, which the transport does not compare. A {@link StoreLocks lock} is the
 * exception, judged by that clock as the id store judges its windows: {@link #tryLock} first writes the clock znode
 * {@code /cosid/leader/clock} and takes its {@code mtime} as the store's now, then reads the role's record and
 * writes it at the version read, minted and with a lease granted at that now, only when the record's lease deadline
 * is not ahead of it; {@link #unlock} does the same to keep the lease until its grant plus {@code atLeastFor}, or
 * to clear it. The now is stamped before the read, so it is never later than the moment the decision is about.
 * Every operation runs within the id store's bound.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("zookeeper://zk1:2181,zk2:2181,zk3:2181/app");
 * }</pre>
 */
public final class ZooKeeperCoordinationTransport implements CoordinationTransport, StoreLocks {

    private static final String ROLES = "/cosid/leader/roles";
    /** The znode whose writes stamp the leader's clock for the locks. */
    private static final String CLOCK = "/cosid/leader/clock";
    /** A record changed by others between every read and write this often is given up on (within the bound). */
    private static final int ATTEMPTS = 1_000;

    private final ZooKeeperLeaseStore store;
    private final CuratorFramework client;

    ZooKeeperCoordinationTransport(ZooKeeperLeaseStore store) {
        this.store = Objects.requireNonNull(store, "store");
        this.client = store.client();
    }

    /**
     * Opens the transport of a store URL: {@code zookeeper://host:port[,host:port...][/chroot]}.
     *
     * @param url the store URL
     * @return the transport, which owns its client
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordinationException when no server answers
     */
    public static ZooKeeperCoordinationTransport open(String url) {
        try {
            return new ZooKeeperCoordinationTransport((ZooKeeperLeaseStore) new ZooKeeperLeaseStoreProvider().open(url));
        } catch (LeaseStoreException e) {
            throw new CoordinationException(e.getMessage(), e);
        }
    }

    private static String path(Role role) {
        return ROLES + "/n-" + URLEncoder.encode(role.name(), StandardCharsets.UTF_8);
    }

    @Override
    public FencingToken acquireEpoch(Role role) {
        return update("mint an epoch of role '" + role + "'", role, RoleRecord::minted).token().orElseThrow();
    }

    @Override
    public void register(Role role, MemberId member, long atMillis) {
        update("register " + member + " for role '" + role + "'", role, record -> record.registered(member, atMillis));
    }

    @Override
    public void deregister(Role role, MemberId member) {
        update("deregister " + member + " from role '" + role + "'", role, record -> record.deregistered(member));
    }

    @Override
    public Lease writeLease(Role role, FencingToken token, Lease lease) {
        RoleRecord.requireLeaseToken(token, lease);
        update("write the lease of role '" + role + "' with token " + token, role,
                record -> record.leaseWritten(role, token, lease));
        return lease;
    }

    @Override
    public void clearLease(Role role, FencingToken token) {
        Objects.requireNonNull(token, "token");
        update("clear the lease of role '" + role + "' with token " + token, role,
                record -> record.leaseCleared(role, token));
    }

    @Override
    public Optional<Lease> tryLock(Role role, MemberId holder, Duration atMostFor, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(holder, "holder");
        StoreLocks.requireExtents(atMostFor, atLeastFor);
        AtomicReference<Lease> taken = new AtomicReference<>();
        stamped("take the lock of role '" + role + "'", role, (record, now) -> {
            taken.set(null);
            if (record.lease().isPresent() && record.lease().get().deadline() > now) {
                return record;
            }
            RoleRecord minted = record.minted();
            FencingToken token = minted.token().orElseThrow();
            long deadline = now > Long.MAX_VALUE - atMostFor.toMillis() ? Long.MAX_VALUE : now + atMostFor.toMillis();
            Lease lease = new Lease(holder, token, now, deadline);
            taken.set(lease);
            return minted.leaseWritten(role, token, lease);
        });
        return Optional.ofNullable(taken.get());
    }

    @Override
    public boolean unlock(Role role, FencingToken token, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(token, "token");
        StoreLocks.requireAtLeast(atLeastFor);
        boolean[] released = new boolean[1];
        stamped("release the lock of role '" + role + "' with token " + token, role, (record, now) -> {
            released[0] = false;
            Optional<Lease> lease = record.lease();
            if (!record.token().equals(Optional.of(token)) || lease.isEmpty() || !lease.get().token().equals(token)) {
                return record;
            }
            released[0] = true;
            long keep = lease.get().grantedAt() + atLeastFor.toMillis();
            return keep > now ? record.leaseWritten(role, token, new Lease(lease.get().member(), token,
                    lease.get().grantedAt(), keep)) : record.leaseCleared(role, token);
        });
        return released[0];
    }

    /** Returns the leader's clock: the modification time of a write to the clock znode. */
    private long storeNow() throws Exception {
        try {
            return client.setData().forPath(CLOCK).getMtime();
        } catch (KeeperException.NoNodeException missing) {
            try {
                client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(CLOCK);
            } catch (KeeperException.NodeExistsException created) {
                // another client created it first
            }
            return client.setData().forPath(CLOCK).getMtime();
        }
    }

    /**
     * Reads the record with its version, applies the transition and writes the result at that version (creates
     * it for a new role); a write that lost a race reads again. A transition that refuses (a fenced token) throws
     * and writes nothing; one that changes nothing writes nothing.
     */
    private RoleRecord update(String what, Role role, UnaryOperator<RoleRecord> transition) {
        return update(what, role, false, (record, now) -> transition.apply(record));
    }

    /** As {@link #update(String, Role, UnaryOperator)}, with the leader's clock stamped before each read. */
    private RoleRecord stamped(String what, Role role, BiFunction<RoleRecord, Long, RoleRecord> transition) {
        return update(what, role, true, transition);
    }

    private RoleRecord update(String what, Role role, boolean stamp,
                              BiFunction<RoleRecord, Long, RoleRecord> transition) {
        String path = path(role);
        return call(what, () -> {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                long now = stamp ? storeNow() : 0;
                Stat stat = new Stat();
                RoleRecord current;
                boolean exists = true;
                try {
                    current = RoleRecord.decode(role, client.getData().storingStatIn(stat).forPath(path));
                } catch (KeeperException.NoNodeException missing) {
                    current = RoleRecord.EMPTY;
                    exists = false;
                }
                RoleRecord next = transition.apply(current, now);
                if (next.equals(current)) {
                    return current;
                }
                try {
                    if (exists) {
                        client.setData().withVersion(stat.getVersion()).forPath(path, next.encode());
                    } else {
                        client.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path,
                                next.encode());
                    }
                    return next;
                } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException race) {
                    // another writer changed the record since it was read: read it again
                }
            }
            throw new CoordinationException("the record of role '" + role + "' in " + store.describe()
                    + " kept changing during " + ATTEMPTS + " attempts to " + what);
        });
    }

    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        return read("read role '" + role + "'", role).entries(role);
    }

    @Override
    public Optional<FencingToken> describe(Role role) {
        return read("read the fence of role '" + role + "'", role).token();
    }

    private RoleRecord read(String what, Role role) {
        return call(what, () -> {
            sync(path(role));
            try {
                return RoleRecord.decode(role, client.getData().forPath(path(role)));
            } catch (KeeperException.NoNodeException missing) {
                return RoleRecord.EMPTY;
            }
        });
    }

    @Override
    public Set<Role> roles() {
        return call("list the roles", () -> {
            Set<Role> roles = new TreeSet<>();
            List<String> children;
            sync(ROLES);
            try {
                children = client.getChildren().forPath(ROLES);
            } catch (KeeperException.NoNodeException none) {
                return roles;
            }
            for (String child : children) {
                if (child.startsWith("n-")) {
                    roles.add(Role.of(URLDecoder.decode(child.substring(2), StandardCharsets.UTF_8)));
                }
            }
            return roles;
        });
    }

    /**
     * Brings the server this client is connected to up to date with the leader before a read: a follower answers
     * reads from what it has applied, which may lag the quorum, and a standby that read an older lease would
     * challenge before the holder's deadline. A server that cannot reach the leader holds the sync until the bound
     * ends the call.
     */
    private void sync(String path) throws Exception {
        CountDownLatch synced = new CountDownLatch(1);
        client.sync().inBackground((curator, event) -> synced.countDown()).forPath(path);
        synced.await();
    }

    /** Runs work within the store's bound; a refusal of the coordination rules (a fence) comes out as it is. */
    private <T> T call(String what, ZooKeeperLeaseStore.ZkWork<T> work) {
        try {
            return store.call(what, work);
        } catch (LeaseStoreException e) {
            if (e.getCause() instanceof CoordinationException) {
                throw (CoordinationException) e.getCause();
            }
            throw new CoordinationException(e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "ZooKeeperCoordinationTransport[" + store.describe() + "]";
    }
}
