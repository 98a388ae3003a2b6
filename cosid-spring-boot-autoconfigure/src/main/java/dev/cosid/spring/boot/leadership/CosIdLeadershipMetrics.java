package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The leadership's Micrometer meters, tagged {@code role}: elections won, leadership held (a gauge, 1 while this
 * instance leads), revocations by reason, and writes the fenced paths refused. A role's meters appear with its first
 * report, which each elector makes when it starts.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid_leadership_elections_total{role="billing"} 1.0
 * cosid_leadership_held{role="billing"} 1.0
 * cosid_leadership_revocations_total{reason="renewals_failing",role="billing"} 0.0
 * cosid_leadership_fenced_total{path="jdbc",role="billing"} 0.0
 * }</pre>
 */
public final class CosIdLeadershipMetrics implements FencedWrites {

    private final MeterRegistry registry;
    private final Map<Role, AtomicInteger> held = new ConcurrentHashMap<>();

    /**
     * Creates the meters.
     *
     * @param registry the application's registry
     */
    public CosIdLeadershipMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    private AtomicInteger held(Role role) {
        return held.computeIfAbsent(role, r -> {
            AtomicInteger value = new AtomicInteger();
            Gauge.builder("cosid.leadership.held", value, AtomicInteger::get).tag("role", r.name())
                    .description("1 while this instance leads the role").register(registry);
            elections(r);
            for (Revocation.Reason reason : Revocation.Reason.values()) {
                revocations(r, reason);
            }
            fenced(r, "kafka");
            fenced(r, "jdbc");
            return value;
        });
    }

    private Counter elections(Role role) {
        return Counter.builder("cosid.leadership.elections").tag("role", role.name())
                .description("elections this instance won").register(registry);
    }

    private Counter revocations(Role role, Revocation.Reason reason) {
        return Counter.builder("cosid.leadership.revocations").tag("role", role.name())
                .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .description("leaderships of this instance that ended, by reason").register(registry);
    }

    private Counter fenced(Role role, String path) {
        return Counter.builder("cosid.leadership.fenced").tag("role", role.name()).tag("path", path)
                .description("writes a fenced path refused: a newer token exists, or this instance did not lead")
                .register(registry);
    }

    @Override
    public void registered(Role role, dev.cosid.coordination.MemberId member) {
        held(role);
    }

    @Override
    public void waiting(Role role, long untilMillis, int rank) {
        held(role);
    }

    @Override
    public void leaderChanged(Role role, java.util.Optional<dev.cosid.coordination.MemberId> leader) {
        held(role);
    }

    @Override
    public void campaignFailed(Role role, dev.cosid.coordination.CoordinationException failure) {
        held(role);
    }

    @Override
    public void elected(Leadership leadership) {
        held(leadership.role()).set(1);
        elections(leadership.role()).increment();
    }

    @Override
    public void revoked(Revocation revocation) {
        Role role = revocation.leadership().role();
        held(role).set(0);
        revocations(role, revocation.reason()).increment();
    }

    @Override
    public void refused(Role role, String path) {
        held(role);
        fenced(role, path).increment();
    }
}
