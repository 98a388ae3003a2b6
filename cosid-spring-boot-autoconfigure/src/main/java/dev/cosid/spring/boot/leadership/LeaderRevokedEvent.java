package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Revocation;
import java.util.Objects;

/**
 * This instance stopped leading a role: its {@code @LeaderOnly} calls were interrupted and new ones are skipped,
 * and the fenced paths refuse its writes. {@link #reason()} says why: {@code FENCED} (a newer epoch exists),
 * {@code RENEWALS_FAILING} (no renewal by the deadline minus the revoke margin), or {@code RESIGNED} (shutdown).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @EventListener
 * void revoked(LeaderRevokedEvent event) {
 *     if (event.reason() == Revocation.Reason.RENEWALS_FAILING) {
 *         alert("lost touch with the cluster: " + event.revocation().detail());
 *     }
 * }
 * }</pre>
 */
public final class LeaderRevokedEvent extends CosIdLeadershipEvent {

    private static final long serialVersionUID = 1L;

    private final transient Revocation revocation;

    /**
     * Creates the event.
     *
     * @param source the {@link CosIdLeadership} that publishes it
     * @param revocation the leadership that ended, why and when
     */
    public LeaderRevokedEvent(Object source, Revocation revocation) {
        super(source, revocation.leadership().role(), revocation.leadership().lease().member());
        this.revocation = Objects.requireNonNull(revocation, "revocation");
    }

    /** Returns the revocation: the leadership, the reason, one sentence on what happened, and when. */
    public Revocation revocation() {
        return revocation;
    }

    /** Returns why the leadership ended. */
    public Revocation.Reason reason() {
        return revocation.reason();
    }

    /** Returns the token of the leadership that ended. */
    public FencingToken token() {
        return revocation.leadership().token();
    }

    @Override
    public String toString() {
        return "LeaderRevokedEvent[" + role() + ", " + member() + ", token " + token() + ", " + revocation + "]";
    }
}
