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
     * Writes a lease under a token this transport minted.
     *
     * @param role the role
     * @param token the writer's token
     * @param lease the lease
     * @throws FencedException when a newer epoch exists
     */
    void writeLease(Role role, FencingToken token, Lease lease);

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
