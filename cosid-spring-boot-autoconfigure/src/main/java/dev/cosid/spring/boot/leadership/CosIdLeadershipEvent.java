package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import java.util.Objects;
import org.springframework.context.ApplicationEvent;

/**
 * A change of this instance's leadership of one role, published to the application context from the elector's
 * threads. Listeners run on those threads: keep them short, or hand the work to an executor ({@code @Async}).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @EventListener
 * void on(CosIdLeadershipEvent event) {
 *     log.info("{} for role {}", event.getClass().getSimpleName(), event.role());
 * }
 * }</pre>
 */
public abstract class CosIdLeadershipEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final transient Role role;
    private final transient MemberId member;

    /**
     * Creates the event.
     *
     * @param source the {@link CosIdLeadership} that publishes it
     * @param role the role
     * @param member this instance's member id
     */
    protected CosIdLeadershipEvent(Object source, Role role, MemberId member) {
        super(source);
        this.role = Objects.requireNonNull(role, "role");
        this.member = Objects.requireNonNull(member, "member");
    }

    /** Returns the role. */
    public Role role() {
        return role;
    }

    /** Returns this instance's member id. */
    public MemberId member() {
        return member;
    }
}
