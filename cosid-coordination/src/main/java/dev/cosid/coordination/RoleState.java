package dev.cosid.coordination;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The folded state of one role: the roster, in registration order, and the lease.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RoleState state = RoleStateBuilder.fold(role, transport.readRoleRecords(role));
 * OptionalInt rank = state.rankOf(me);
 * }</pre>
 *
 * @param role the role
 * @param roster the registered members, in offset order
 * @param lease the current lease record, if any
 */
public record RoleState(Role role, List<RosterEntry> roster, Optional<Lease> lease) {

    /** Copies the roster. */
    public RoleState {
        Objects.requireNonNull(role, "role");
        roster = List.copyOf(roster);
        Objects.requireNonNull(lease, "lease");
    }

    /**
     * Returns a member's registration.
     *
     * @param member the member
     * @return its roster entry, if registered
     */
    public Optional<RosterEntry> registration(MemberId member) {
        return roster.stream().filter(entry -> entry.member().equals(member)).findFirst();
    }

    /**
     * Returns a member's challenge rank: empty if not registered; 0 for the member the lease names
     * (live or expired); otherwise its position in the roster with the lease holder left out.
     *
     * @param member the member
     * @return the rank
     */
    public OptionalInt rankOf(MemberId member) {
        if (registration(member).isEmpty()) {
            return OptionalInt.empty();
        }
        Optional<MemberId> holder = lease.map(Lease::member);
        if (holder.isPresent() && holder.get().equals(member)) {
            return OptionalInt.of(0);
        }
        int rank = 0;
        for (RosterEntry entry : roster) {
            if (entry.member().equals(member)) {
                return OptionalInt.of(rank);
            }
            if (holder.isEmpty() || !entry.member().equals(holder.get())) {
                rank++;
            }
        }
        return OptionalInt.empty();
    }
}
