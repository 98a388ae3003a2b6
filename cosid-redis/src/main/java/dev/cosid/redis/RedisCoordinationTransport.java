package dev.cosid.redis;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleRecord;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.coordination.StoreLocks;
import dev.cosid.lease.LeaseStoreException;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Leadership in Redis, the one the ids use, opened by the same URL: a single server, a primary behind Sentinel,
 * or a Redis Cluster. A role is two hashes, {@code cosid:{leader:ROLE}:role} (fence, sequence, lease) and
 * {@code cosid:{leader:ROLE}:members}, whose shared hash tag puts them in one cluster slot, and every operation
 * is one Lua script on them, run where the id store runs its scripts.
 *
 * <ul>
 *   <li>{@link #acquireEpoch} is {@code HINCRBY fence 1} inside a script: the token is {@code (fence, 0)}
 *       ({@link RoleRecord#token(long)}), strictly greater than every token minted before, never reused while
 *       Redis keeps what it confirmed.</li>
 *   <li>{@link #writeLease} and {@link #clearLease} write only while the role's fence is the writer's, in the same
 *       script that checks it, and stamp the server's {@code TIME} into {@code lease_written}; a deposed holder's
 *       write changes nothing and gets {@link dev.cosid.coordination.FencedException}.</li>
 *   <li>Every write waits for {@code waitReplicas} replicas as the id store's writes do (1 behind Sentinel by
 *       default), and fails when they do not confirm it: a mint or a lease the replicas did not confirm does not
 *       count.</li>
 * </ul>
 *
 * <p>The lease's instants are the writer's, as the client granted them: Redis compares no clock, since the fence
 * alone decides which writer counts. A {@link StoreLocks lock} is the exception, judged by the server's
 * {@code TIME} inside its script: {@link #tryLock} mints and writes a lease granted at {@code TIME} only when the
 * role's lease deadline is not ahead of it, and {@link #unlock} keeps the lease until its grant plus
 * {@code atLeastFor} by the same clock, or clears it. {@link #roles()} scans the keyspace (every primary of a cluster).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationTransport transport = CoordinationTransports.open("redis-sentinel://s1:26379,s2:26379,s3:26379#ids");
 * }</pre>
 */
public final class RedisCoordinationTransport implements CoordinationTransport, StoreLocks {

    private static final String PREFIX = "cosid:{leader:";
    private static final String ROLE_SUFFIX = "}:role";
    private static final String MEMBERS_SUFFIX = "}:members";

    private final RedisLeaseStore store;

    RedisCoordinationTransport(RedisLeaseStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * Opens the transport of a store URL: {@code redis://}, {@code rediss://}, {@code redis-sentinel://} or
     * {@code redis-cluster://}, with the options the id store takes.
     *
     * @param url the store URL
     * @return the transport, which owns its connection
     * @throws IllegalArgumentException when the URL is malformed or refused
     * @throws CoordinationException when Redis cannot be reached or refuses the password
     */
    public static RedisCoordinationTransport open(String url) {
        try {
            return new RedisCoordinationTransport((RedisLeaseStore) new RedisLeaseStoreProvider().open(url));
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
    }

    private static String[] keys(Role role) {
        return new String[] {PREFIX + role.name() + ROLE_SUFFIX, PREFIX + role.name() + MEMBERS_SUFFIX};
    }

    @Override
    public FencingToken acquireEpoch(Role role) {
        List<Object> reply = script("mint an epoch of role '" + role + "'", LeaderScripts.MINT, role, true);
        return RoleRecord.token(Long.parseLong((String) reply.get(0)));
    }

    @Override
    public void register(Role role, MemberId member, long atMillis) {
        script("register " + member + " for role '" + role + "'", LeaderScripts.REGISTER, role, true, member.name(),
                Long.toString(atMillis));
    }

    @Override
    public void deregister(Role role, MemberId member) {
        script("deregister " + member + " from role '" + role + "'", LeaderScripts.DEREGISTER, role, true,
                member.name());
    }

    @Override
    public Lease writeLease(Role role, FencingToken token, Lease lease) {
        RoleRecord.requireLeaseToken(token, lease);
        guarded(role, token, "write the lease of role '" + role + "' with token " + token, LeaderScripts.WRITE_LEASE,
                lease.member().name(), Long.toString(lease.grantedAt()), Long.toString(lease.deadline()));
        return lease;
    }

    @Override
    public void clearLease(Role role, FencingToken token) {
        Objects.requireNonNull(token, "token");
        guarded(role, token, "clear the lease of role '" + role + "' with token " + token, LeaderScripts.CLEAR_LEASE);
    }

    @Override
    public Optional<Lease> tryLock(Role role, MemberId holder, Duration atMostFor, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(holder, "holder");
        StoreLocks.requireExtents(atMostFor, atLeastFor);
        List<Object> reply = script("take the lock of role '" + role + "'", LeaderScripts.LOCK, role, true,
                holder.name(), Long.toString(atMostFor.toMillis()));
        if (reply == null || reply.isEmpty() || reply.get(0) == null) {
            return Optional.empty();
        }
        return Optional.of(new Lease(holder, RoleRecord.token(Long.parseLong((String) reply.get(0))),
                Long.parseLong((String) reply.get(1)), Long.parseLong((String) reply.get(2))));
    }

    @Override
    public boolean unlock(Role role, FencingToken token, Duration atLeastFor) {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(token, "token");
        StoreLocks.requireAtLeast(atLeastFor);
        if (token.producerEpoch() != 0) {
            return false; // not minted here
        }
        List<Object> reply = script("release the lock of role '" + role + "' with token " + token,
                LeaderScripts.UNLOCK, role, true, Long.toString(token.producerId()),
                Long.toString(atLeastFor.toMillis()));
        return reply != null && !reply.isEmpty() && reply.get(0) != null;
    }

    /** Runs a write conditioned on the fence; a token with an epoch other than 0 was not minted here. */
    private void guarded(Role role, FencingToken token, String what, String script, String... rest) {
        if (token.producerEpoch() == 0) {
            String[] args = new String[rest.length + 1];
            args[0] = Long.toString(token.producerId());
            System.arraycopy(rest, 0, args, 1, rest.length);
            List<Object> reply = script(what, script, role, true, args);
            if (reply != null && !reply.isEmpty() && reply.get(0) != null) {
                return;
            }
        }
        Optional<FencingToken> current;
        try {
            current = describe(role);
        } catch (CoordinationException unknown) {
            current = Optional.empty();
        }
        throw RoleRecord.fenced(role, token, current);
    }

    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        List<Object> reply = script("read role '" + role + "'", LeaderScripts.READ, role, false);
        Map<String, String> fields = pairs((List<?>) reply.get(0));
        Map<String, String> registrations = pairs((List<?>) reply.get(1));
        try {
            Optional<Lease> lease = Optional.empty();
            long leaseOffset = 0;
            if (fields.containsKey("lease_member")) {
                lease = Optional.of(new Lease(MemberId.of(fields.get("lease_member")),
                        RoleRecord.token(Long.parseLong(fields.get("lease_fence"))),
                        Long.parseLong(fields.get("lease_granted")), Long.parseLong(fields.get("lease_deadline"))));
                leaseOffset = Long.parseLong(fields.get("lease_seq"));
            }
            List<RosterEntry> members = new ArrayList<>();
            registrations.forEach((member, value) -> {
                int colon = value.indexOf(':');
                members.add(new RosterEntry(MemberId.of(member), Long.parseLong(value.substring(colon + 1)),
                        Long.parseLong(value.substring(0, colon))));
            });
            return new RoleRecord(number(fields, "fence"), number(fields, "seq"), lease, leaseOffset, members)
                    .entries(role);
        } catch (RuntimeException e) {
            // a missing field, a number that is not one, a name outside the rule: written by something else
            throw new CoordinationException("the records of role '" + role + "' in " + store.describe()
                    + " are corrupt: " + fields + " " + registrations, e);
        }
    }

    private static long number(Map<String, String> fields, String field) {
        String value = fields.get(field);
        return value == null ? 0 : Long.parseLong(value);
    }

    private static Map<String, String> pairs(List<?> flat) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            map.put((String) flat.get(i), (String) flat.get(i + 1));
        }
        return map;
    }

    @Override
    public Optional<FencingToken> describe(Role role) {
        String fence;
        try {
            fence = store.call("read the fence of role '" + role + "'",
                    () -> store.commands().hget(keys(role)[0], "fence"));
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
        return fence == null ? Optional.empty() : Optional.of(RoleRecord.token(Long.parseLong(fence)));
    }

    @Override
    public Set<Role> roles() {
        Set<Role> roles = new TreeSet<>();
        ScanArgs args = ScanArgs.Builder.matches(PREFIX + "*" + ROLE_SUFFIX).limit(500);
        try {
            ScanCursor cursor = ScanCursor.INITIAL;
            do {
                ScanCursor from = cursor;
                // on a cluster the cursor walks every primary in turn
                KeyScanCursor<String> page = store.call("list the roles", () -> store.commands().scan(from, args));
                for (String key : page.getKeys()) {
                    roles.add(Role.of(key.substring(PREFIX.length(), key.length() - ROLE_SUFFIX.length())));
                }
                cursor = page;
            } while (!cursor.isFinished());
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
        return roles;
    }

    private List<Object> script(String what, String script, Role role, boolean write, String... args) {
        try {
            return store.script(what, script, keys(role), write, args);
        } catch (LeaseStoreException e) {
            throw failure(e);
        }
    }

    private static CoordinationException failure(LeaseStoreException e) {
        return new CoordinationException(e.getMessage(), e);
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "RedisCoordinationTransport[" + store.describe() + "]";
    }
}
