package dev.cosid.coordination;

import dev.cosid.time.Clock;
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
 * A faithful single-process transport: mints epochs per role as Kafka's coordinator does (the epoch
 * grows; past {@code Short.MAX_VALUE - 1} a new producer id starts at epoch 0), keeps one ordered log
 * per role, and fences every write whose token is not the role's newest. Its {@link StoreLocks} judge the
 * lock's time by the clock it is given: in one process, that is the store's clock.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationClient client = new CoordinationClient(new InMemoryTransport(), LeaseConfig.DEFAULT, clock);
 * }</pre>
 */
public final class InMemoryTransport implements CoordinationTransport, StoreLocks {

    private final Map<Role, List<CoordinationEntry>> logs = new HashMap<>();
    private final Map<Role, FencingToken> current = new HashMap<>();
    private final Clock clock;
    private long nextProducerId = 1_000;

    /** A transport whose locks run on the host's clock. */
    public InMemoryTransport() {
        this(Clock.system());
    }

    /**
     * A transport whose locks run on a given clock, a manual one in tests.
     *
     * @param clock the store's clock
     */
    public InMemoryTransport(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized FencingToken acquireEpoch(Role role) {
        FencingToken previous = current.get(role);
        FencingToken minted;
        if (previous == null || previous.producerEpoch() >= Short.MAX_VALUE - 1) {
            minted = FencingToken.of(nextProducerId++, (short) 0);
        } else {
            minted = FencingToken.of(previous.producerId(), (short) (previous.producerEpoch() + 1));
        }
        current.put(role, minted);
        return minted;
    }

    /**
     * Starts a role's epochs just below the wrap, for tests of the move to a new producer id.
     *
     * @param role the role
     * @param token the token the next mint continues from
     */
    public synchronized void seedEpoch(Role role, FencingToken token) {
        current.put(role, token);
        nextProducerId = Math.max(nextProducerId, token.producerId() + 1);
    }

    @Override
    public synchronized List<CoordinationEntry> readRoleRecords(Role role) {
        return List.copyOf(logs.getOrDefault(role, List.of()));
    }

    @Override
    public synchronized void register(Role role, MemberId member, long atMillis) {
        append(CoordinationKey.registration(role, member), Optional.of(new Registration(member, atMillis)));
    }

    @Override
    public synchronized void deregister(Role role, MemberId member) {
        append(CoordinationKey.registration(role, member), Optional.empty());
    }

    @Override
    public synchronized Lease writeLease(Role role, FencingToken token, Lease lease) {
        if (!lease.token().equals(token)) {
            throw new CoordinationException("the lease names token " + lease.token() + " but is written with token "
                    + token);
        }
        fence(role, token);
        append(CoordinationKey.lease(role), Optional.of(lease));
        return lease;
    }

    @Override
    public synchronized void clearLease(Role role, FencingToken token) {
        fence(role, token);
        append(CoordinationKey.lease(role), Optional.empty());
    }

    private void fence(Role role, FencingToken token) {
        FencingToken newest = current.get(role);
        if (newest == null || !newest.equals(token)) {
            throw new FencedException("role '" + role + "': token " + token + " is fenced; the newest is "
                    + (newest == null ? "none" : newest));
        }
    }

    private void append(CoordinationKey key, Optional<CoordinationValue> value) {
        List<CoordinationEntry> log = logs.computeIfAbsent(key.role(), r -> new ArrayList<>());
        log.add(new CoordinationEntry(log.size(), key, value));
    }

    @Override
    public synchronized Optional<Lease> tryLock(Role role, MemberId holder, Duration atMostFor, Duration atLeastFor) {
        Objects.requireNonNull(holder, "holder");
        StoreLocks.requireExtents(atMostFor, atLeastFor);
        long now = clock.nowMillis();
        Optional<Lease> lease = lease(role);
        if (lease.isPresent() && lease.get().deadline() > now) {
            return Optional.empty();
        }
        FencingToken token = acquireEpoch(role);
        Lease written = new Lease(holder, token, now, Saturating.add(now, atMostFor.toMillis()));
        append(CoordinationKey.lease(role), Optional.of(written));
        return Optional.of(written);
    }

    @Override
    public synchronized boolean unlock(Role role, FencingToken token, Duration atLeastFor) {
        Objects.requireNonNull(token, "token");
        StoreLocks.requireAtLeast(atLeastFor);
        Optional<Lease> lease = lease(role);
        if (!token.equals(current.get(role)) || lease.isEmpty() || !lease.get().token().equals(token)) {
            return false;
        }
        long keep = Saturating.add(lease.get().grantedAt(), atLeastFor.toMillis());
        append(CoordinationKey.lease(role), keep > clock.nowMillis()
                ? Optional.of(new Lease(lease.get().member(), token, lease.get().grantedAt(), keep)) : Optional.empty());
        return true;
    }

    /** The role's newest lease record, if it is not a tombstone. */
    private Optional<Lease> lease(Role role) {
        List<CoordinationEntry> log = logs.getOrDefault(role, List.of());
        for (int i = log.size() - 1; i >= 0; i--) {
            if (log.get(i).key().kind() == RecordKind.LEASE) {
                return log.get(i).value().map(Lease.class::cast);
            }
        }
        return Optional.empty();
    }

    @Override
    public synchronized Optional<FencingToken> describe(Role role) {
        return Optional.ofNullable(current.get(role));
    }

    @Override
    public synchronized Set<Role> roles() {
        return new TreeSet<>(logs.keySet());
    }

    @Override
    public void close() {
        // nothing to release
    }
}
