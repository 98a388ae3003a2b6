package dev.cosid.coordination;

import java.util.OptionalInt;

/**
 * What a member should do about a role now, and until when the answer cannot change.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Decision decision = Succession.evaluate(state, me, clock.nowMillis(), config);
 * if (decision.action() == Decision.Action.WAIT) {
 *     sleepUntil(decision.atMillis());
 * }
 * }</pre>
 *
 * @param action what to do
 * @param atMillis for WAIT the challenge instant, for HOLD the renewal instant, for CHALLENGE the
 *     instant the challenge became due; 0 for NOT_REGISTERED
 * @param rank the member's rank, if registered
 */
public record Decision(Action action, long atMillis, OptionalInt rank) {

    /** The four answers of the succession rules. */
    public enum Action {
        /** Register, then evaluate again. */
        NOT_REGISTERED,
        /** The member holds a live lease: renew when due. */
        HOLD,
        /** Mint an epoch now. */
        CHALLENGE,
        /** Do nothing until {@code atMillis}. */
        WAIT
    }
}
