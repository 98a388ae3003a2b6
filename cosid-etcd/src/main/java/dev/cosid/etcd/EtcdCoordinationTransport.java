package dev.cosid.etcd;

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
import dev.cosid.time.Clock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * Leadership in etcd, the cluster the ids use, opened by the same URL. A role is one key,
 * {@code /PREFIX/cosid/leader/roles/ROLE} (the role URL-encoded), holding the whole {@link RoleRecord}: fence,
 * sequence, lease and registrations. Every change is one transaction: <i>if</i> the key's mod revision and value
 * are the ones just read (or the key does not exist, for a new role) <i>then</i> put the record's transition
 * <i>else</i> get the key, whose answer is the next attempt's starting point.
 *
 * <ul>
 *   <li>{@link #acquireEpoch} puts the record with its fence one higher: the token is {@code (fence, 0)}, strictly
 *       greater than every token minted before, never reused while a quorum survives.</li>
 *   <li>{@link #writeLease} and {@link #clearLease} put only when the record read names the writer's fence; the
 *       revision compare makes that record the one the write replaces.</li>
 *   <li>{@link #readRoleRecords} is one linearizable read of one key, so one snapshot.</li>
 * </ul>
 *
 * <p>etcd answers carry no time; the lease's instants are the writer's, as the client granted them, and nothing
 * here compares a clock. A {@link StoreLocks lock} is timed by etcd all the same, with etcd's own leases, whose
 * timers the etcd leader runs: {@link #tryLock} grants a lease of {@code atMostFor} (and one of
 * {@code atLeastFor}, when it is not zero), rounded up to whole seconds, and in one transaction mints, writes the
 * role's lease, and puts the key {@code /PREFIX/cosid/leader/locks/ROLE} attached to the first (and
 * {@code /PREFIX/cosid/leader/holds/ROLE} attached to the second), only while neither key exists. A key is gone
 * when its lease runs out, so the lock is free once both are gone or {@link #unlock} deleted the first. etcd raises
 * a lease shorter than its minimum (about 2 s with the default election timeout) to that minimum, and a new etcd
 * leader restarts every lease's timer: both only keep a lock longer. The role's lease record carries this process's
 * clock, for people to read; on etcd an elected leader's lease does not hold a lock off (its mint still fences
 * the holder). Every call runs within the id store's bound.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379");
 * }</pre>
 */
public final class EtcdCoordinationTransport implements CoordinationTransport, StoreLocks {

    /** A record changed by others between every read and write this often is given up on. */
    private static final int ATTEMPTS = 100;

    private final EtcdLeaseStore store;
    private final KV kv;
    private final String roles;
    private final String locks;
    private final String holds;
    private final Clock clock = Clock.system();

    EtcdCoordinationTransport(EtcdLeaseStore store) {
        this.store = Objects.requireNonNull(store, "store");
        this.kv = store.kv();
        this.roles = store.top() + "leader/roles/";
        this.locks = store.top() + "leader/locks/";
        this.holds = store.top() + "leader/holds/";
    }

    /**
     * Opens the transport of a store URL: {@code etcd://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...][/PREFIX]}.
     *
     * @param url the store URL
     * @return the transport, which owns its client
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordinationException when no member answers
     */
    public static EtcdCoordinationTransport open(String url) {
        try {
            return new EtcdCoordinationTransport((EtcdLeaseStore) new EtcdLeaseStoreProvider().open(url));
        } catch (LeaseStoreException e) {
            throw new CoordinationException(e.getMessage(), e);
        }
    }

    private ByteSequence key(Role role) {
        return key(roles, role);
    }

    private static ByteSequence key(String prefix, Role role) {
        return bytes(prefix + URLEncoder.encode(role.name(), StandardCharsets.UTF_8));
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
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
        String what = "take the lock of role '" + role + "'";
        ByteSequence key = key(role);
        ByteSequence lock = key(locks, role);
        ByteSequence hold = key(holds, role);
        // one read of the three keys first: a held lock costs no lease grant
        TxnResponse seen = await(what, kv.txn().Then(Op.get(key, GetOption.DEFAULT), Op.get(lock, GetOption.DEFAULT),
                Op.get(hold, GetOption.DEFAULT)).commit());
        if (held(seen)) {
            return Optional.empty();
        }
        long most = grant(what, atMostFor);
        long least = atLeastFor.isZero() ? 0 : grant(what, atLeastFor);
        KeyValue record = first(seen.getGetResponses().get(0));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            RoleRecord minted = RoleRecord.decode(role, record == null ? null : record.getValue().getBytes()).minted();
            FencingToken token = minted.token().orElseThrow();
            long now = clock.nowMillis();
            Lease lease = new Lease(holder, token, now, now + atMostFor.toMillis());
            ByteSequence fence = bytes(Long.toString(token.producerId()));
            List<Op> puts = new ArrayList<>(List.of(
                    Op.put(key, ByteSequence.from(minted.leaseWritten(role, token, lease).encode()), PutOption.DEFAULT),
                    Op.put(lock, fence, PutOption.builder().withLeaseId(most).build())));
            if (least != 0) {
                puts.add(Op.put(hold, fence, PutOption.builder().withLeaseId(least).build()));
            }
            List<Cmp> free = new ArrayList<>(unchanged(key, record));
            free.add(new Cmp(lock, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
            free.add(new Cmp(hold, Cmp.Op.EQUAL, CmpTarget.createRevision(0)));
            TxnResponse response = await(what, kv.txn().If(free.toArray(Cmp[]::new)).Then(puts.toArray(Op[]::new))
                    .Else(Op.get(key, GetOption.DEFAULT), Op.get(lock, GetOption.DEFAULT),
                            Op.get(hold, GetOption.DEFAULT)).commit());
            if (response.isSucceeded()) {
                return Optional.of(lease);
            }
            if (held(response)) {
                revoke(most);
                revoke(least);
                return Optional.empty();
            }
            record = first(response.getGetResponses().get(0));
        }
        revoke(most);
        revoke(least);
        throw new CoordinationException("the record of role '" + role + "' in " + store.describe()
                + " kept changing during " + ATTEMPTS + " attempts to " + what);
    }

    /** Whether a read of the role, its lock key and its hold key found either key. */
    private static boolean held(TxnResponse read) {
        return !read.getGetResponses().get(1).getKvs().isEmpty() || !read.getGetResponses().get(2).getKvs().isEmpty();
    }

    /** Grants an etcd lease of the extent rounded up to whole seconds, and returns its id. */
    private long grant(String what, Duration extent) {
        long seconds = Math.max(1, (extent.toMillis() + 999) / 1000);
        return await(what, store.leases().grant(seconds)).getID();
    }

    /** Revokes a lease this transport granted and did not attach; one that fails expires by itself. */
    private void revoke(long lease) {
        if (lease != 0) {
            store.leases().revoke(lease);
        }
    }

    @Override
    public boolean unlock(Role role, FencingToken token, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(token, "token");
        StoreLocks.requireAtLeast(atLeastFor);
        String what = "release the lock of role '" + role + "' with token " + token;
        ByteSequence key = key(role);
        KeyValue seen = first(await(what, kv.get(key)));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            RoleRecord record = RoleRecord.decode(role, seen == null ? null : seen.getValue().getBytes());
            Optional<Lease> lease = record.lease();
            if (!record.token().equals(Optional.of(token)) || lease.isEmpty() || !lease.get().token().equals(token)) {
                return false;
            }
            // the role's fence is still this lock's, so no one took the lock since: the lock key, if it is there,
            // is this lock's own; the hold key stays until its lease runs out
            RoleRecord next = atLeastFor.isZero() ? record.leaseCleared(role, token) : record.leaseWritten(role, token,
                    new Lease(lease.get().member(), token, lease.get().grantedAt(),
                            lease.get().grantedAt() + atLeastFor.toMillis()));
            TxnResponse response = await(what, kv.txn().If(unchanged(key, seen).toArray(Cmp[]::new))
                    .Then(Op.put(key, ByteSequence.from(next.encode()), PutOption.DEFAULT),
                            Op.delete(key(locks, role), DeleteOption.DEFAULT))
                    .Else(Op.get(key, GetOption.DEFAULT)).commit());
            if (response.isSucceeded()) {
                return true;
            }
            seen = first(response.getGetResponses().get(0));
        }
        throw new CoordinationException("the record of role '" + role + "' in " + store.describe()
                + " kept changing during " + ATTEMPTS + " attempts to " + what);
    }

    /** The compare of a transaction that writes a record read as {@code seen}: its mod revision and value. */
    private static List<Cmp> unchanged(ByteSequence key, KeyValue seen) {
        // the value is compared as well: a cluster that lost its data counts revisions from 1 again
        return seen == null ? List.of(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                : List.of(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(seen.getModRevision())),
                        new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(seen.getValue())));
    }

    /**
     * Applies a transition with one transaction compared on the key's mod revision and value; a lost race takes
     * the record from the failed transaction's else branch and tries again. A transition that refuses (a fenced
     * token) throws and writes nothing; one that changes nothing writes nothing.
     */
    private RoleRecord update(String what, Role role, UnaryOperator<RoleRecord> transition) {
        ByteSequence key = key(role);
        KeyValue seen = first(await(what, kv.get(key)));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            RoleRecord current = RoleRecord.decode(role, seen == null ? null : seen.getValue().getBytes());
            RoleRecord next = transition.apply(current);
            if (next.equals(current)) {
                return current;
            }
            // the value is compared as well: a cluster that lost its data counts revisions from 1 again
            Cmp[] unchanged = seen == null
                    ? new Cmp[] {new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))}
                    : new Cmp[] {new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(seen.getModRevision())),
                            new Cmp(key, Cmp.Op.EQUAL, CmpTarget.value(seen.getValue()))};
            TxnResponse response = await(what, kv.txn().If(unchanged)
                    .Then(Op.put(key, ByteSequence.from(next.encode()), PutOption.DEFAULT))
                    .Else(Op.get(key, GetOption.DEFAULT))
                    .commit());
            if (response.isSucceeded()) {
                return next;
            }
            seen = first(response.getGetResponses().get(0));
        }
        throw new CoordinationException("the record of role '" + role + "' in " + store.describe()
                + " kept changing during " + ATTEMPTS + " attempts to " + what);
    }

    private static KeyValue first(GetResponse response) {
        return response.getKvs().isEmpty() ? null : response.getKvs().get(0);
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
        KeyValue found = first(await(what, kv.get(key(role))));
        return RoleRecord.decode(role, found == null ? null : found.getValue().getBytes());
    }

    @Override
    public Set<Role> roles() {
        GetResponse response = await("list the roles", kv.get(bytes(roles),
                GetOption.builder().isPrefix(true).withKeysOnly(true).build()));
        Set<Role> all = new TreeSet<>();
        for (KeyValue entry : response.getKvs()) {
            String encoded = entry.getKey().toString(StandardCharsets.UTF_8).substring(roles.length());
            all.add(Role.of(URLDecoder.decode(encoded, StandardCharsets.UTF_8)));
        }
        return all;
    }

    private <T> T await(String what, java.util.concurrent.CompletableFuture<T> call) {
        try {
            return store.await(what, call);
        } catch (LeaseStoreException e) {
            throw new CoordinationException(e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "EtcdCoordinationTransport[" + store.describe() + "]";
    }
}
