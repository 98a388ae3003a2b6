package dev.cosid.coordination;

import java.util.Objects;

/**
 * The key of a coordination record: its kind, its role, and for a registration its member.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationKey key = CoordinationKey.registration(Role.of("controller"), MemberId.of("node-1"));
 * }</pre>
 *
 * @param kind the record kind
 * @param role the role
 * @param member the member of a registration key, null for a lease key
 */
public record CoordinationKey(RecordKind kind, Role role, MemberId member) {

    /** Checks that a registration names a member and a lease does not. */
    public CoordinationKey {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(role, "role");
        if (kind == RecordKind.REGISTRATION && member == null) {
            throw new CoordinationException("a registration key names a member");
        }
        if (kind == RecordKind.LEASE && member != null) {
            throw new CoordinationException("a lease key names no member");
        }
    }

    /**
     * Returns the key of a member's registration.
     *
     * @param role the role
     * @param member the member
     * @return the key
     */
    public static CoordinationKey registration(Role role, MemberId member) {
        return new CoordinationKey(RecordKind.REGISTRATION, role, Objects.requireNonNull(member, "member"));
    }

    /**
     * Returns the key of a role's lease.
     *
     * @param role the role
     * @return the key
     */
    public static CoordinationKey lease(Role role) {
        return new CoordinationKey(RecordKind.LEASE, role, null);
    }
}
