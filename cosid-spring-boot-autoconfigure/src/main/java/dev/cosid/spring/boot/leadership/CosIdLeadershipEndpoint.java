package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.LeadershipStatus;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.RoleState;
import dev.cosid.coordination.RosterEntry;
import dev.cosid.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code leadership} actuator endpoint: for each role this instance campaigns for, the holder, its token and
 * whether that token is the coordinator's current one, the lease's deadline and the roster with each member's rank,
 * read from the cluster now; and this instance's own view (leading, its elector's state). A role whose read fails
 * shows the failure instead, so one unreachable role does not hide the others.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GET /actuator/leadership            every role
 * GET /actuator/leadership/billing    one role (404 for a role this instance does not campaign for)
 * }</pre>
 */
@Endpoint(id = "leadership")
public class CosIdLeadershipEndpoint {

    private final CosIdLeadership leadership;
    private final Clock clock;

    /**
     * Creates the endpoint.
     *
     * @param leadership the application's leadership
     */
    public CosIdLeadershipEndpoint(CosIdLeadership leadership) {
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.clock = Clock.system();
    }

    /**
     * Shows every role.
     *
     * @return this member, the transport and each role's report
     */
    @ReadOperation
    public Map<String, Object> report() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("member", leadership.member().name());
        report.put("transport", leadership.transportName());
        report.put("running", leadership.isRunning());
        Map<String, Object> roles = new LinkedHashMap<>();
        for (Role role : leadership.roles()) {
            roles.put(role.name(), role(role));
        }
        report.put("roles", roles);
        return report;
    }

    /**
     * Shows one role.
     *
     * @param role the role's name
     * @return its report, or null (404) for a role this instance does not campaign for
     */
    @ReadOperation
    public Map<String, Object> role(@Selector String role) {
        if (!LeadershipSettings.isRoleName(role) || !leadership.roles().contains(Role.of(role))) {
            return null;
        }
        return role(Role.of(role));
    }

    private Map<String, Object> role(Role role) {
        Map<String, Object> report = new LinkedHashMap<>();
        LeadershipHealth health = LeadershipHealth.of(leadership, role.name());
        report.put("leading", health.details().get("leading"));
        report.put("state", health.details().get("state"));
        CosIdLeadership.RoleHandle handle = leadership.handle(role.name());
        try {
            LeadershipStatus status = new CoordinationClient(leadership.transport(), handle.policy.config(), clock)
                    .describe(role);
            report.put("holder", status.holder().map(Object::toString).orElse(null));
            report.put("token", status.lease().map(lease -> lease.token().toString()).orElse(null));
            report.put("current", status.current());
            report.put("coordinatorToken", status.token().map(Object::toString).orElse(null));
            report.put("deadline", status.lease().map(lease -> Instant.ofEpochMilli(lease.deadline()).toString())
                    .orElse(null));
            report.put("live", status.lease().map(lease -> lease.deadline() > clock.nowMillis()).orElse(false));
            report.put("roster", roster(status.state()));
        } catch (CoordinationException e) {
            report.put("error", e.getMessage());
        }
        return report;
    }

    private static List<Map<String, Object>> roster(RoleState state) {
        List<Map<String, Object>> roster = new ArrayList<>();
        String holder = state.lease().map(Lease::member).map(Object::toString).orElse(null);
        for (RosterEntry entry : state.roster()) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("member", entry.member().name());
            member.put("rank", state.rankOf(entry.member()).orElse(-1));
            member.put("holder", entry.member().name().equals(holder));
            member.put("registeredAt", Instant.ofEpochMilli(entry.registeredAt()).toString());
            roster.add(member);
        }
        return roster;
    }
}
