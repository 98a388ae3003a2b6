package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Leadership;
import java.util.Objects;

/**
 * This instance was elected leader of a role: its {@code @LeaderOnly} methods run from now on, and the fenced paths
 * ({@link LeaderKafka}, {@link LeaderJdbcFence}) write with {@link #token()}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @EventListener
 * void elected(LeaderElectedEvent event) {
 *     log.info("leading {} with token {}", event.role(), event.token());
 * }
 * }</pre>
 */
public final class LeaderElectedEvent extends CosIdLeadershipEvent {

    private static final long serialVersionUID = 1L;

    private final transient Leadership leadership;

    /**
     * Creates the event.
     *
     * @param source the {@link CosIdLeadership} that publishes it
     * @param leadership the leadership won
     */
    public LeaderElectedEvent(Object source, Leadership leadership) {
        super(source, leadership.role(), leadership.lease().member());
        this.leadership = Objects.requireNonNull(leadership, "leadership");
    }

    /** Returns the live leadership. */
    public Leadership leadership() {
        return leadership;
    }

    /** Returns the epoch minted for this leadership: the token its fenced writes carry. */
    public FencingToken token() {
        return leadership.token();
    }

    @Override
    public String toString() {
        return "LeaderElectedEvent[" + role() + ", " + member() + ", token " + token() + "]";
    }
}
