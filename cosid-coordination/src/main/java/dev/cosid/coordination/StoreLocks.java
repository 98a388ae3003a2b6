package dev.cosid.coordination;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Locks on a role whose time the store judges, by its own clock: the model of ShedLock's
 * {@code lockAtMostFor} and {@code lockAtLeastFor} on the role's record, with the role's fence as the lock's
 * token. Every store transport implements it; a lock is taken only when the role's lease has no deadline
 * still ahead of the store's clock, and taking it mints a new token (the fence grows by one), so every earlier
 * holder of the role, locker or elected leader, is fenced from then on.
 *
 * <p>The lease a lock writes names the holder, the token and two instants of the store's clock: granted now,
 * deadline now plus {@code atMostFor}. So {@code roles} shows a lock's holder, and an elector on the same role
 * waits for it (by its own clock, against the store's deadline). The store compares the deadline with its own
 * clock in the same atomic operation that mints: {@code now()} in SQL, {@code TIME} in a Redis script, the
 * {@code mtime} of a write to a clock znode in ZooKeeper. etcd answers carry no time, so there the lock is a key
 * attached to an etcd lease of {@code atMostFor}, which the etcd leader's timer ends.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * StoreLocks locks = (StoreLocks) CoordinationTransports.open("jdbc:postgresql://db:5432/app?user=cosid");
 * Optional<Lease> held = locks.tryLock(Role.of("report"), MemberId.of("node-1"), Duration.ofMinutes(5),
 *         Duration.ZERO);
 * held.ifPresent(lease -> {
 *     try {
 *         runReport(lease.token());   // hand the token to the JDBC fence
 *     } finally {
 *         locks.unlock(Role.of("report"), lease.token(), Duration.ZERO);
 *     }
 * });
 * }</pre>
 */
public interface StoreLocks {

    /**
     * Takes the role's lock when its lease has no deadline ahead of the store's clock: mints a new token and
     * writes a lease for the holder, granted at the store's now, with a deadline {@code atMostFor} later.
     *
     * @param role the role, the lock's name
     * @param holder who takes it, as the lease names it
     * @param atMostFor how long the lock holds if it is never released, by the store's clock
     * @param atLeastFor how long it holds at least, counted from the grant; only etcd needs it here, to start its
     *     timer with the lock (the others count it in {@link #unlock})
     * @return the lease written (the new token, the store's instants), or empty when the lock is held
     * @throws CoordinationException when the store cannot be reached, or the extents are negative, shorter than a
     *     millisecond where one is needed, or {@code atLeastFor} is longer than {@code atMostFor}
     */
    Optional<Lease> tryLock(Role role, MemberId holder, Duration atMostFor, Duration atLeastFor);

    /**
     * Releases a lock taken with a token: the lease's deadline becomes its grant plus {@code atLeastFor} when that
     * is still ahead of the store's clock, and the lease is cleared otherwise. A token that no longer holds the
     * role changes nothing.
     *
     * @param role the role
     * @param token the token {@link #tryLock} returned
     * @param atLeastFor the extent the lock was taken with
     * @return false when a newer token had been minted for the role (the lock had run past its deadline and
     *     someone took it), or the lease was gone
     * @throws CoordinationException when the store cannot be reached; the lock then holds until its deadline
     */
    boolean unlock(Role role, FencingToken token, Duration atLeastFor);

    /**
     * Checks the extents of a lock, as every implementation does before it calls its store.
     *
     * @param atMostFor at least a millisecond
     * @param atLeastFor not negative, not longer than {@code atMostFor}
     * @throws CoordinationException naming the values when they do not fit
     */
    static void requireExtents(Duration atMostFor, Duration atLeastFor) {
        Objects.requireNonNull(atMostFor, "atMostFor");
        Objects.requireNonNull(atLeastFor, "atLeastFor");
        if (atMostFor.toMillis() < 1) {
            throw new CoordinationException("a lock holds at most for at least 1 ms, not " + atMostFor.toMillis()
                    + " ms");
        }
        requireAtLeast(atLeastFor);
        if (atLeastFor.compareTo(atMostFor) > 0) {
            throw new CoordinationException("a lock's at-least extent of " + atLeastFor.toMillis()
                    + " ms is longer than its at-most extent of " + atMostFor.toMillis() + " ms");
        }
    }

    /**
     * Checks the at-least extent a lock is released with.
     *
     * @param atLeastFor not negative
     * @throws CoordinationException naming the value when it is negative
     */
    static void requireAtLeast(Duration atLeastFor) {
        Objects.requireNonNull(atLeastFor, "atLeastFor");
        if (atLeastFor.isNegative()) {
            throw new CoordinationException("a lock holds at least for 0 ms or more, not " + atLeastFor.toMillis()
                    + " ms");
        }
    }
}
