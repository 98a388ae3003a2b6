package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.Elector;
import dev.cosid.coordination.Leadership;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One health reading of one role, independent of Spring Boot's health API: up while the role's elector runs and
 * its last call to the cluster was answered; down, with the reason, when the elector is not running or its calls
 * fail (renewals included). It reads no cluster, so it answers while the cluster hangs; the {@code leadership}
 * endpoint reads the cluster for the roster and the coordinator's token.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeadershipHealth health = LeadershipHealth.of(leadership, "billing");
 * // {role=billing, member=app@host:8080, state=LEADING, leading=true, holder=app@host:8080, token=1000:0, ...}
 * }</pre>
 *
 * @param up whether the elector runs and the cluster answers
 * @param reason why not, or an empty string
 * @param details role, member, state, leading, holder (as this member last saw it), and while leading the token, the
 *     lease's token and its deadline; while standing by the rank and when this member challenges
 */
public record LeadershipHealth(boolean up, String reason, Map<String, Object> details) {

    /**
     * Reads the state of a role's elector; reads no cluster.
     *
     * @param leadership the application's leadership
     * @param role the role's name
     * @return the reading
     * @throws IllegalArgumentException for a role this instance does not campaign for
     */
    public static LeadershipHealth of(CosIdLeadership leadership, String role) {
        CosIdLeadership.RoleHandle handle = leadership.handle(role);
        Elector elector = handle.elector;
        Elector.State state = elector == null ? Elector.State.NEW : elector.state();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("role", role);
        details.put("member", leadership.member().name());
        details.put("state", state.name());
        Optional<Leadership> held = leadership.leadership(role);
        details.put("leading", held.isPresent());
        leadership.leader(role).ifPresent(holder -> details.put("holder", holder.name()));
        if (held.isPresent()) {
            details.put("token", held.get().token().toString());
            details.put("leaseToken", held.get().lease().token().toString());
            details.put("deadline", Instant.ofEpochMilli(held.get().lease().deadline()).toString());
        } else if (handle.watch.challengeAtMillis() >= 0 && state == Elector.State.CAMPAIGNING) {
            details.put("rank", handle.watch.rank());
            details.put("challengeAt", Instant.ofEpochMilli(handle.watch.challengeAtMillis()).toString());
        }
        details.put("leaseMillis", handle.policy.config().duration().toMillis());
        details.put("revokeMarginMillis", handle.policy.revokeMargin().toMillis());
        String reason = "";
        if (state != Elector.State.CAMPAIGNING && state != Elector.State.LEADING) {
            reason = "the elector of role '" + role + "' is " + state + ", not running";
        } else if (handle.watch.failure().isPresent()) {
            reason = "calls to the cluster fail since " + Instant.ofEpochMilli(handle.watch.failingSinceMillis())
                    + ": " + handle.watch.failure().get();
        }
        return new LeadershipHealth(reason.isEmpty(), reason, Collections.unmodifiableMap(details));
    }
}
