package dev.cosid.coordination;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Folds the records of one role into a {@link RoleState}. The kind and member come from the key,
 * never the value; per key the record at the highest offset wins, so the order in which records
 * arrive does not matter; a registration tombstone removes the member for good (an older
 * registration that arrives later does not revive it); a lease tombstone clears the lease; records
 * of other roles and values whose kind contradicts their key are dropped.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RoleState state = new RoleStateBuilder(role).addAll(entries).build();
 * }</pre>
 */
public final class RoleStateBuilder {

    private final Role role;
    private final Map<CoordinationKey, CoordinationEntry> latest = new HashMap<>();

    /**
     * Starts a fold.
     *
     * @param role the role whose records count
     */
    public RoleStateBuilder(Role role) {
        this.role = Objects.requireNonNull(role, "role");
    }

    /**
     * Folds the records of a role.
     *
     * @param role the role
     * @param entries its records, in any order
     * @return the state
     */
    public static RoleState fold(Role role, Iterable<CoordinationEntry> entries) {
        return new RoleStateBuilder(role).addAll(entries).build();
    }

    /**
     * Adds one record.
     *
     * @param entry the record
     * @return this builder
     */
    public RoleStateBuilder add(CoordinationEntry entry) {
        CoordinationKey key = entry.key();
        if (!key.role().equals(role)) {
            return this;
        }
        if (entry.value().isPresent() && entry.value().get().kind() != key.kind()) {
            return this;
        }
        latest.merge(key, entry, (kept, offered) -> offered.offset() > kept.offset() ? offered : kept);
        return this;
    }

    /**
     * Adds records.
     *
     * @param entries the records
     * @return this builder
     */
    public RoleStateBuilder addAll(Iterable<CoordinationEntry> entries) {
        entries.forEach(this::add);
        return this;
    }

    /** Returns the folded state. */
    public RoleState build() {
        List<RosterEntry> roster = new ArrayList<>();
        Optional<Lease> lease = Optional.empty();
        for (CoordinationEntry entry : latest.values()) {
            if (entry.value().isEmpty()) {
                continue;
            }
            CoordinationValue value = entry.value().get();
            if (entry.key().kind() == RecordKind.LEASE) {
                lease = Optional.of((Lease) value);
            } else {
                roster.add(new RosterEntry(entry.key().member(), ((Registration) value).registeredAt(), entry.offset()));
            }
        }
        roster.sort(Comparator.comparingLong(RosterEntry::offset));
        return new RoleState(role, roster, lease);
    }
}
