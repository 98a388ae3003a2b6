package dev.cosid.coordination;

import dev.cosid.time.Clock;

/**
 * The live handle of a won role. {@link FencedException} from {@link #renew()} is the only signal
 * that the leadership ended; the handle is then dead for good and every later call says so. Other
 * failures of a renewal keep the old lease.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (Leadership leadership = client.acquire(role, me, Duration.ofMinutes(1))) {
 *     while (working) {
 *         if (leadership.renewDue()) {
 *             leadership.renew();
 *         }
 *         doWork(leadership.token());
 *     }
 * }
 * }</pre>
 */
public final class Leadership implements AutoCloseable {

    private final CoordinationTransport transport;
    private final LeaseConfig config;
    private final Clock clock;
    private final Role role;
    private final FencingToken token;
    private Lease lease;
    private boolean ended;
    /** Set when an {@link Elector} stopped this leadership's work; the lease may still be resigned. */
    private volatile String revoked;

    Leadership(CoordinationTransport transport, LeaseConfig config, Clock clock, Role role, FencingToken token,
               Lease written) {
        this.transport = transport;
        this.config = config;
        this.clock = clock;
        this.role = role;
        this.token = token;
        this.lease = written;
    }

    /** Returns the role. */
    public Role role() {
        return role;
    }

    /**
     * Returns the epoch this leadership was minted and writes with. It stays the same for the life of the
     * handle; the token a third party sees as current is the one in {@link #lease()}, which moves on with
     * every renewal under Kafka's transaction protocol version 2.
     */
    public FencingToken token() {
        return token;
    }

    /** Returns the latest lease this handle wrote, as written: its token is the one readers see as current. */
    public synchronized Lease lease() {
        return lease;
    }

    /**
     * Reports whether this handle may still act for the role: not fenced, resigned or revoked by its elector.
     * A live handle can still be deposed at any moment; the brokers or the JDBC fence then refuse its writes.
     *
     * @return false once the leadership has ended as far as this process knows
     */
    public boolean live() {
        return revoked == null && !endedNow();
    }

    private synchronized boolean endedNow() {
        return ended;
    }

    /**
     * Throws unless this handle is {@link #live()}: the check a fenced path makes before it writes.
     *
     * @throws FencedException naming the role, member and token, and why the leadership ended
     */
    public void requireLive() {
        String why = revoked;
        if (why != null) {
            throw new FencedException("the leadership of role '" + role + "' by " + member() + " with token " + token
                    + " was revoked: " + why);
        }
        synchronized (this) {
            requireNotEnded();
        }
    }

    /** Marks the leadership revoked by its elector: the work stops; {@link #resign()} still clears the lease. */
    void revoke(String why) {
        revoked = why;
    }

    private MemberId member() {
        synchronized (this) {
            return lease.member();
        }
    }

    /** Returns the timing of the latest lease. */
    public synchronized LeaseTiming timing() {
        return config.timing(lease);
    }

    /** Reports whether a renewal is due now. */
    public synchronized boolean renewDue() {
        return !ended && timing().renewDueAt(clock.nowMillis());
    }

    /**
     * Writes a new lease with the same token, granted now.
     *
     * @return the new lease, as written
     * @throws FencedException when a newer epoch exists: the leadership has ended
     * @throws CoordinationException for other failures; the old lease stays
     */
    public synchronized Lease renew() {
        requireLive();
        requireNotEnded();
        Lease next = config.grant(lease.member(), token, clock.nowMillis());
        Lease written;
        try {
            written = transport.writeLease(role, token, next);
        } catch (FencedException e) {
            ended = true;
            throw e;
        }
        lease = written;
        return written;
    }

    /**
     * Clears the lease and ends the leadership, so a standby can take over without waiting.
     *
     * @throws FencedException when a newer epoch already exists
     */
    public synchronized void resign() {
        requireNotEnded();
        ended = true;
        transport.clearLease(role, token);
    }

    /** Resigns if still held; a fence is swallowed. Idempotent. */
    @Override
    public synchronized void close() {
        if (ended) {
            return;
        }
        try {
            resign();
        } catch (FencedException e) {
            // someone newer holds the role: nothing to give back
        }
    }

    private void requireNotEnded() {
        if (ended) {
            throw new FencedException("the leadership of role '" + role + "' by " + lease.member() + " with token "
                    + token + " has ended");
        }
    }

    @Override
    public synchronized String toString() {
        return "Leadership[" + role + ", " + lease + (ended ? ", ended" : revoked != null ? ", revoked" : "") + "]";
    }
}
