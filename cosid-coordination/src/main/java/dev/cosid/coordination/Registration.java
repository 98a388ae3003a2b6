package dev.cosid.coordination;

import java.util.Objects;

/**
 * A candidate's join record.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Registration joined = new Registration(MemberId.of("node-1"), clock.nowMillis());
 * }</pre>
 *
 * @param member the candidate
 * @param registeredAt when it registered, epoch milliseconds
 */
public record Registration(MemberId member, long registeredAt) implements CoordinationValue {

    /** Checks the member. */
    public Registration {
        Objects.requireNonNull(member, "member");
    }

    @Override
    public RecordKind kind() {
        return RecordKind.REGISTRATION;
    }
}
