package dev.cosid.coordination;

import java.util.Optional;

/**
 * A third party's view of one role: the coordinator's current token and the folded lease.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeadershipStatus status = client.describe(role);
 * if (status.current()) {
 *     route(status.holder().orElseThrow());
 * }
 * }</pre>
 *
 * @param role the role
 * @param token the coordinator's newest token, if any epoch was minted
 * @param lease the latest lease record, if any
 * @param state the folded state
 */
public record LeadershipStatus(Role role, Optional<FencingToken> token, Optional<Lease> lease, RoleState state) {

    /** Returns the member the lease names, if any. */
    public Optional<MemberId> holder() {
        return lease.map(Lease::member);
    }

    /** Reports whether the lease's token is the coordinator's newest: the holder's writes count. */
    public boolean current() {
        return lease.isPresent() && token.isPresent() && lease.get().token().equals(token.get());
    }
}
