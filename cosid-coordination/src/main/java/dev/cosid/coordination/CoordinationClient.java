package dev.cosid.coordination;

import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The election loop over a {@link CoordinationTransport}: register, evaluate the succession rules,
 * and challenge by minting an epoch. The epoch decides; the lease only tells standbys when to try.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CoordinationClient client = new CoordinationClient(transport, LeaseConfig.DEFAULT, Clock.system());
 * Optional<Leadership> won = client.tryAcquire(Role.of("controller"), MemberId.of("node-1"));
 * }</pre>
 */
public final class CoordinationClient {

    private final CoordinationTransport transport;
    private final LeaseConfig config;
    private final Clock clock;
    private final Duration retryInterval;

    /**
     * Creates a client that retries at most every renew interval.
     *
     * @param transport the cluster seam
     * @param config the lease policy
     * @param clock the clock, also used to wait
     */
    public CoordinationClient(CoordinationTransport transport, LeaseConfig config, Clock clock) {
        this(transport, config, clock, config.renewInterval());
    }

    /**
     * Creates a client.
     *
     * @param transport the cluster seam
     * @param config the lease policy
     * @param clock the clock, also used to wait
     * @param retryInterval the longest wait between two passes of {@link #acquire}
     */
    public CoordinationClient(CoordinationTransport transport, LeaseConfig config, Clock clock, Duration retryInterval) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.retryInterval = Objects.requireNonNull(retryInterval, "retryInterval");
    }

    /** Returns the folded state of a role, read now. */
    public RoleState state(Role role) {
        return RoleStateBuilder.fold(role, transport.readRoleRecords(role));
    }

    /**
     * Runs one pass without blocking: register if needed, then challenge if the rules say so.
     *
     * @param role the role
     * @param member the member
     * @return the leadership if this pass won it
     */
    public Optional<Leadership> tryAcquire(Role role, MemberId member) {
        return pass(role, member).leadership;
    }

    /**
     * Repeats passes, sleeping until the decision's instant (bounded by the retry interval and the
     * deadline), until the member holds the role.
     *
     * @param role the role
     * @param member the member
     * @param timeout how long to try
     * @return the leadership
     * @throws CoordinationException naming member and role when the timeout passes
     */
    public Leadership acquire(Role role, MemberId member, Duration timeout) {
        long deadline = Saturating.add(clock.nowMillis(), timeout.toMillis());
        for (;;) {
            Pass pass = pass(role, member);
            if (pass.leadership.isPresent()) {
                return pass.leadership.get();
            }
            long now = clock.nowMillis();
            if (now >= deadline) {
                throw new CoordinationException("member " + member + " did not acquire role '" + role + "' within "
                        + timeout.toMillis() + " ms");
            }
            long until = pass.decision.action() == Decision.Action.WAIT ? pass.decision.atMillis() : now;
            long wait = Math.min(Math.max(1, until - now), Math.min(retryInterval.toMillis(), deadline - now));
            clock.park(wait * 1_000_000L);
        }
    }

    private Pass pass(Role role, MemberId member) {
        RoleState state = state(role);
        Decision decision = Succession.evaluate(state, member, clock.nowMillis(), config);
        if (decision.action() == Decision.Action.NOT_REGISTERED) {
            transport.register(role, member, clock.nowMillis());
            state = state(role);
            decision = Succession.evaluate(state, member, clock.nowMillis(), config);
        }
        // HOLD here means a lease names this member but this process has no handle: a restart; take it anew
        if (decision.action() != Decision.Action.CHALLENGE && decision.action() != Decision.Action.HOLD) {
            return new Pass(decision, Optional.empty());
        }
        FencingToken token = transport.acquireEpoch(role);
        Lease written;
        try {
            written = transport.writeLease(role, token, config.grant(member, token, clock.nowMillis()));
        } catch (FencedException lost) {
            return new Pass(decision, Optional.empty());
        }
        return new Pass(decision, Optional.of(new Leadership(transport, config, clock, role, token, written)));
    }

    /**
     * Removes a member from a role's roster, for a member that stops campaigning. Resign or close its
     * {@link Leadership} first: leaving does not clear a lease.
     *
     * @param role the role
     * @param member the member that leaves
     */
    public void leave(Role role, MemberId member) {
        transport.deregister(role, member);
    }

    /**
     * Returns a third party's view of a role.
     *
     * @param role the role
     * @return its status
     */
    public LeadershipStatus describe(Role role) {
        // a holder that commits between the two reads moves the coordinator's token on; read until the
        // token is the same before and after the records, so the snapshot is one instant's
        Optional<FencingToken> before = transport.describe(role);
        for (int attempt = 0; ; attempt++) {
            RoleState state = state(role);
            Optional<FencingToken> after = transport.describe(role);
            if (after.equals(before) || attempt == 4) {
                return new LeadershipStatus(role, after, state.lease(), state);
            }
            before = after;
        }
    }

    /** Returns the status of every role with records. */
    public List<LeadershipStatus> roles() {
        List<LeadershipStatus> all = new ArrayList<>();
        for (Role role : transport.roles()) {
            all.add(describe(role));
        }
        return all;
    }

    private static final class Pass {
        final Decision decision;
        final Optional<Leadership> leadership;

        Pass(Decision decision, Optional<Leadership> leadership) {
            this.decision = decision;
            this.leadership = leadership;
        }
    }
}
