package dev.cosid.coordination;

/**
 * One registered member of a role, at the offset of its registration.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * state.roster().forEach(entry -> System.out.println(entry.member() + " since " + entry.registeredAt()));
 * }</pre>
 *
 * @param member the member
 * @param registeredAt when it registered, epoch milliseconds
 * @param offset the offset of its registration record
 */
public record RosterEntry(MemberId member, long registeredAt, long offset) {
}
