package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Revocation;
import dev.cosid.coordination.Role;
import dev.cosid.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listener of one role's elector: opens and shuts the role's {@link RoleGate}, remembers what the health
 * reports (the last failed call, when this member challenges, its rank) without asking the cluster, logs the
 * transitions, and passes every call on to the meters, the application's events and the application's
 * {@link ElectionListener} beans, each on its own so that one that throws does not keep the call from the others.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RoleWatch watch = new RoleWatch(role, gate, clock, listeners, events::publishEvent, leadership);
 * Elector.builder(transport, role, member).listener(watch);
 * }</pre>
 */
final class RoleWatch implements ElectionListener {

    private static final Logger LOG = LoggerFactory.getLogger(CosIdLeadership.class);

    private final Role role;
    private final RoleGate gate;
    private final Clock clock;
    private final List<ElectionListener> listeners;
    private final Consumer<Object> events;
    private final Object source;

    private volatile String failure;
    private volatile long failingSinceMillis = -1;
    private volatile long challengeAtMillis = -1;
    private volatile int rank = -1;

    RoleWatch(Role role, RoleGate gate, Clock clock, List<ElectionListener> listeners, Consumer<Object> events,
              Object source) {
        this.role = role;
        this.gate = gate;
        this.clock = clock;
        this.listeners = List.copyOf(listeners);
        this.events = events;
        this.source = source;
    }

    /** Returns the last failed call's message while no call has succeeded since, else empty. */
    Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** Returns since when calls fail, or -1. */
    long failingSinceMillis() {
        return failingSinceMillis;
    }

    /** Returns when this member challenges as a standby, by its own clock, or -1. */
    long challengeAtMillis() {
        return challengeAtMillis;
    }

    /** Returns this member's rank as a standby, or -1. */
    int rank() {
        return rank;
    }

    private void answered() {
        failure = null;
        failingSinceMillis = -1;
    }

    /** Records a failed call; returns whether calls answered until now, so that a lasting outage logs once. */
    private boolean failed(CoordinationException e) {
        boolean first = failure == null;
        if (first) {
            failingSinceMillis = clock.nowMillis();
        }
        failure = e.getMessage();
        return first;
    }

    private void each(Consumer<ElectionListener> call) {
        for (ElectionListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("an election listener of role '{}' threw; the others still hear of it", role, e);
            }
        }
    }

    private void publish(Object event) {
        try {
            events.accept(event);
        } catch (RuntimeException e) {
            LOG.warn("a listener of {} threw", event, e);
        }
    }

    @Override
    public void registered(Role role, MemberId member) {
        answered();
        LOG.info("registered {} for role '{}'", member, role);
        each(listener -> listener.registered(role, member));
    }

    @Override
    public void waiting(Role role, long untilMillis, int rank) {
        answered();
        this.challengeAtMillis = untilMillis;
        this.rank = rank;
        LOG.debug("waiting for role '{}' until {} at rank {}", role, java.time.Instant.ofEpochMilli(untilMillis), rank);
        each(listener -> listener.waiting(role, untilMillis, rank));
    }

    @Override
    public void challenged(Role role, int rank) {
        answered();
        LOG.debug("challenging for role '{}' at rank {}", role, rank);
        each(listener -> listener.challenged(role, rank));
    }

    @Override
    public void elected(Leadership leadership) {
        gate.open(leadership); // before anyone hears of it, so that a listener's fenced write is admitted
        answered();
        challengeAtMillis = -1;
        rank = -1;
        LOG.info("leading role '{}' with token {} until {}", role, leadership.token(),
                java.time.Instant.ofEpochMilli(leadership.lease().deadline()));
        each(listener -> listener.elected(leadership));
        publish(new LeaderElectedEvent(source, leadership));
    }

    @Override
    public void renewed(Leadership leadership, Lease lease) {
        answered();
        each(listener -> listener.renewed(leadership, lease));
    }

    @Override
    public void renewalFailed(Leadership leadership, CoordinationException failure, long revokeAtMillis) {
        if (failed(failure)) {
            LOG.warn("could not renew role '{}' (the work stops at {} unless a renewal succeeds first): {}", role,
                    java.time.Instant.ofEpochMilli(revokeAtMillis), failure.getMessage());
        }
        each(listener -> listener.renewalFailed(leadership, failure, revokeAtMillis));
    }

    @Override
    public void revoked(Revocation revocation) {
        gate.shut(revocation.leadership());
        if (revocation.reason() == Revocation.Reason.RESIGNED) {
            LOG.info("stopped leading role '{}': {}", role, revocation);
        } else {
            LOG.warn("stopped leading role '{}': {}", role, revocation);
        }
        each(listener -> listener.revoked(revocation));
        publish(new LeaderRevokedEvent(source, revocation));
    }

    @Override
    public void leaderChanged(Role role, Optional<MemberId> leader) {
        LOG.debug("role '{}' is led by {}", role, leader.map(MemberId::toString).orElse("nobody"));
        each(listener -> listener.leaderChanged(role, leader));
    }

    @Override
    public void campaignFailed(Role role, CoordinationException failure) {
        if (failed(failure)) {
            LOG.warn("a campaign step for role '{}' failed; the elector tries again every retry interval: {}", role,
                    failure.getMessage());
        } else {
            LOG.debug("a campaign step for role '{}' failed again: {}", role, failure.getMessage());
        }
        each(listener -> listener.campaignFailed(role, failure));
    }
}
