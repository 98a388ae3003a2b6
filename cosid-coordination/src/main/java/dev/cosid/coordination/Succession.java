package dev.cosid.coordination;

import java.util.Optional;
import java.util.OptionalInt;

/**
 * The succession rules, as a pure function of the folded state and an instant.
 *
 * <ol>
 *   <li>not registered: {@code NOT_REGISTERED};</li>
 *   <li>the member holds the lease and it is live: {@code HOLD};</li>
 *   <li>the challenge instant is {@code deadline + rank * stagger} with a lease, and
 *       {@code registeredAt + rank * stagger} of the member's own registration without one, never
 *       "now plus something", which would move on every evaluation and starve rank 1 and up;</li>
 *   <li>{@code now >= challengeAt}: {@code CHALLENGE}; else {@code WAIT} until then.</li>
 * </ol>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Decision decision = Succession.evaluate(state, me, clock.nowMillis(), LeaseConfig.DEFAULT);
 * }</pre>
 */
public final class Succession {

    private Succession() {
    }

    /**
     * Evaluates the rules for one member.
     *
     * @param state the role's folded state
     * @param member the member
     * @param nowMillis the instant
     * @param config the lease policy
     * @return the decision
     */
    public static Decision evaluate(RoleState state, MemberId member, long nowMillis, LeaseConfig config) {
        Optional<RosterEntry> registration = state.registration(member);
        OptionalInt rank = state.rankOf(member);
        if (registration.isEmpty() || rank.isEmpty()) {
            return new Decision(Decision.Action.NOT_REGISTERED, 0, OptionalInt.empty());
        }
        Optional<Lease> lease = state.lease();
        if (lease.isPresent()) {
            LeaseTiming timing = config.timing(lease.get());
            if (lease.get().member().equals(member) && timing.liveAt(nowMillis)) {
                return new Decision(Decision.Action.HOLD, timing.renewAtMillis(), rank);
            }
        }
        long challengeAt = lease.isPresent()
                ? config.timing(lease.get()).challengeAtMillis(rank.getAsInt())
                : Saturating.add(registration.get().registeredAt(), config.challengeDelayMillis(rank.getAsInt()));
        return nowMillis >= challengeAt
                ? new Decision(Decision.Action.CHALLENGE, challengeAt, rank)
                : new Decision(Decision.Action.WAIT, challengeAt, rank);
    }
}
