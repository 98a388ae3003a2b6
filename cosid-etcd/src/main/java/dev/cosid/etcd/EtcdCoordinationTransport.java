package dev.cosid.etcd;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleRecord;
import dev.cosid.lease.LeaseStoreException;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
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
 * here compares a clock. Every call runs within the id store's bound.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379");
 * }</pre>
 */
public final class EtcdCoordinationTransport implements CoordinationTransport {

    /** A record changed by others between every read and write this often is given up on. */
    private static final int ATTEMPTS = 100;

    private final EtcdLeaseStore store;
    private final KV kv;
    private final String roles;

    EtcdCoordinationTransport(EtcdLeaseStore store) {
        this.store = Objects.requireNonNull(store, "store");
        this.kv = store.kv();
        this.roles = store.top() + "leader/roles/";
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
        return bytes(roles + URLEncoder.encode(role.name(), StandardCharsets.UTF_8));
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
