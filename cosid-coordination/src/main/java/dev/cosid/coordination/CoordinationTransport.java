package dev.cosid.coordination;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The cluster seam of leadership: mints epochs, stores registrations and leases, and fences writes
 * that carry a superseded epoch. Every implementation passes the transport contract suite.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * FencingToken token = transport.acquireEpoch(role);
 * transport.writeLease(role, token, config.grant(me, token, clock.nowMillis()));
 * }</pre>
 */
public interface CoordinationTransport extends AutoCloseable {

    /**
     * Mints a new epoch for the role; every earlier epoch of the role is fenced from then on.
     *
     * @param role the role
     * @return the new token, superseding every earlier one
     */
    FencingToken acquireEpoch(Role role);

    /**
     * Reads every record of a role, with offsets.
     *
     * @param role the role
     * @return the records; only committed lease writes are visible
     */
    List<CoordinationEntry> readRoleRecords(Role role);

    /**
     * Registers a candidate (no epoch needed).
     *
     * @param role the role
     * @param member the candidate
     * @param atMillis the registration instant
     */
    void register(Role role, MemberId member, long atMillis);

    /**
     * Removes a candidate's registration with a tombstone, so the roster shows only members that did not
     * leave. A member that registers again lands at the tail of the roster.
     *
     * @param role the role
     * @param member the candidate that leaves
     */
    void deregister(Role role, MemberId member);

    /**
     * Writes a lease under a token this transport minted, and returns the record as written.
     *
     * <p>The written record carries the token that {@link #describe} reports once the write has
     * committed, so a reader that compares the two sees the writer as current. Where the coordinator's
     * token moves only when an epoch is minted, that is {@code token} itself. Under Kafka's transaction
     * protocol version 2 every commit moves the epoch on, so the record carries the epoch that follows
     * this write's commit.
     *
     * @param role the role
     * @param token the writer's token, as {@link #acquireEpoch} returned it
     * @param lease the lease, granted with {@code token}
     * @return the lease as written, with the token a reader compares with {@link #describe}
     * @throws FencedException when a newer epoch exists
     * @throws CoordinationException when the lease names another token than {@code token}
     */
    Lease writeLease(Role role, FencingToken token, Lease lease);

    /**
     * Clears the lease under a token this transport minted.
     *
     * @param role the role
     * @param token the writer's token
     * @throws FencedException when a newer epoch exists
     */
    void clearLease(Role role, FencingToken token);

    /**
     * Returns the coordinator's current token of a role, as a third party sees it.
     *
     * @param role the role
     * @return the token, or empty when no epoch was ever minted
     */
    Optional<FencingToken> describe(Role role);

    /** Returns every role that has records. */
    Set<Role> roles();

    /** Closes what the transport holds. */
    @Override
    void close();
}
