package dev.cosid.coordination;

import java.util.Objects;

/**
 * The holder's lease record: who holds the role, under which epoch, and until when standbys wait.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Lease lease = config.grant(me, token, clock.nowMillis());
 * }</pre>
 *
 * @param member the holder
 * @param token the epoch the holder writes with
 * @param grantedAt when the lease was granted, epoch milliseconds
 * @param deadline when standbys may challenge, epoch milliseconds
 */
public record Lease(MemberId member, FencingToken token, long grantedAt, long deadline) implements CoordinationValue {

    /** Checks the member and the token. */
    public Lease {
        Objects.requireNonNull(member, "member");
        Objects.requireNonNull(token, "token");
    }

    @Override
    public RecordKind kind() {
        return RecordKind.LEASE;
    }
}
