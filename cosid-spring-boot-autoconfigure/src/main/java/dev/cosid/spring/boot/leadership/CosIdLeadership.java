package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * The application's leadership: one {@link Elector} per role, named under {@code cosid.leadership.roles} or by
 * {@link LeaderOnly}, started with the context and closed on shutdown. Closing an elector resigns its role, so a
 * standby takes over at once, and leaves the role's roster.
 *
 * <p>Spring starts lifecycles by ascending phase and stops them by descending phase. {@link #PHASE} lies above the
 * web server's graceful shutdown ({@code Integer.MAX_VALUE - 1024}) and the CosId runtime
 * ({@code Integer.MAX_VALUE - 4096}): this member gives its roles up before the web server drains its requests and
 * before the runtime releases its slot, so a standby does not wait for a graceful shutdown to take a role over.
 * Spring cancels the {@code @Scheduled} tasks when the context closes, before any lifecycle stops; a run still going
 * is interrupted here and awaited (at most the revoke margin) before the role is given back.
 *
 * <p>What this member does as a leader gets one of two promises ({@code docs/leadership.md}). Writes made through
 * {@link LeaderKafka} and {@link LeaderJdbcFence} are fenced: the brokers or the fence table refuse them once a
 * successor holds the role, whatever the clocks and pauses do. Everything else a {@code @LeaderOnly} method does is
 * only stopped in time: its thread is interrupted when the leadership ends, at the latest at the lease's deadline
 * minus the revoke margin by this member's clock; a process frozen past that deadline cannot be stopped in time.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Scheduled(fixedDelay = 5_000)
 * @LeaderOnly("billing")
 * public void bill() {
 *     FencingToken token = CosIdLeadership.current().token();
 *     leaderKafka.inTransaction("billing", tx -> tx.send(invoices.next(token)));
 * }
 * }</pre>
 */
public final class CosIdLeadership implements SmartLifecycle, DisposableBean {

    /** Stopped before the web server's graceful shutdown and the CosId runtime; started after them. */
    public static final int PHASE = Integer.MAX_VALUE - 512;

    private static final Logger LOG = LoggerFactory.getLogger(CosIdLeadership.class);
    private static final ThreadLocal<Leadership> CURRENT = new ThreadLocal<>();

    private final CoordinationTransport transport;
    private final LeadershipSettings settings;
    private final Clock clock;
    private final List<ElectionListener> listeners;
    private final ApplicationEventPublisher events;
    private final String transportName;
    private final Map<Role, RoleHandle> roles = new LinkedHashMap<>();
    private boolean running;

    /** One role: its policy, its gate, what its elector reported, and the elector while running. */
    static final class RoleHandle {
        final LeadershipSettings.RolePolicy policy;
        final RoleGate gate;
        final RoleWatch watch;
        volatile Elector elector;

        RoleHandle(LeadershipSettings.RolePolicy policy, RoleGate gate, RoleWatch watch) {
            this.policy = policy;
            this.gate = gate;
            this.watch = watch;
        }
    }

    CosIdLeadership(CoordinationTransport transport, String transportName, LeadershipSettings settings, Clock clock,
                    List<ElectionListener> listeners, ApplicationEventPublisher events) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.transportName = Objects.requireNonNull(transportName, "transportName");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listeners = List.copyOf(listeners);
        this.events = Objects.requireNonNull(events, "events");
        settings.configured().keySet().forEach(this::addRole);
    }

    /**
     * Returns the leadership the current {@link LeaderOnly} call runs under: its role, its token for fenced writes,
     * and whether it is still {@link Leadership#live() live}.
     *
     * @return the leadership
     * @throws IllegalStateException outside a {@code @LeaderOnly} method
     */
    public static Leadership current() {
        Leadership leadership = CURRENT.get();
        if (leadership == null) {
            throw new IllegalStateException("CosIdLeadership.current() is called outside a @LeaderOnly method; "
                    + "inject CosIdLeadership and ask leadership(role) instead");
        }
        return leadership;
    }

    /** Sets the current leadership of this thread, returning the one before, for {@link LeaderOnly} calls. */
    static Leadership enterCurrent(Leadership leadership) {
        Leadership before = CURRENT.get();
        CURRENT.set(leadership);
        return before;
    }

    /** Restores the current leadership of this thread after a {@link LeaderOnly} call. */
    static void leaveCurrent(Leadership before) {
        if (before == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(before);
        }
    }

    /** Returns this instance's member id in every role's roster. */
    public MemberId member() {
        return settings.member();
    }

    /** Returns the roles this instance campaigns for, in the order they became known. */
    public synchronized Set<Role> roles() {
        return new LinkedHashSet<>(roles.keySet());
    }

    /**
     * Reports whether this instance leads a role now, as far as it knows; a leader can be deposed at any moment,
     * which only the fenced paths notice for sure.
     *
     * @param role the role's name
     * @return true while this member holds a live leadership of the role
     * @throws IllegalArgumentException for a role this instance does not campaign for
     */
    public boolean leading(String role) {
        return leadership(role).isPresent();
    }

    /**
     * Returns this instance's live leadership of a role.
     *
     * @param role the role's name
     * @return the leadership, with its token, or empty while this member does not lead
     * @throws IllegalArgumentException for a role this instance does not campaign for
     */
    public Optional<Leadership> leadership(String role) {
        return handle(role).gate.current();
    }

    /**
     * Returns the holder of a role as this member last saw it.
     *
     * @param role the role's name
     * @return the holder of a live lease, or empty while nobody holds the role or before the first look
     * @throws IllegalArgumentException for a role this instance does not campaign for
     */
    public Optional<MemberId> leader(String role) {
        Elector elector = handle(role).elector;
        return elector == null ? Optional.empty() : elector.leader();
    }

    /**
     * Returns the live leadership of a role or throws, for a fenced path. Inside a {@link LeaderOnly} call of the
     * role it is the call's own leadership, never a later one of this member: a call that outlived its leadership
     * must not write under the next.
     */
    Leadership requireLeading(String role, String path) {
        Leadership own = CURRENT.get();
        if (own != null && own.role().name().equals(role)) {
            if (!own.live()) {
                refused(own.role(), path);
                own.requireLive(); // throws, naming why the leadership ended
            }
            return own;
        }
        Optional<Leadership> leadership = leadership(role);
        if (leadership.isEmpty()) {
            FencedException refused = new FencedException(member() + " does not lead role '" + role
                    + "' now; the " + path + " write is refused");
            refused(Role.of(role), path);
            throw refused;
        }
        return leadership.get();
    }

    /** Counts a write a fenced path refused. */
    void refused(Role role, String path) {
        for (ElectionListener listener : listeners) {
            if (listener instanceof FencedWrites writes) {
                try {
                    writes.refused(role, path);
                } catch (RuntimeException e) {
                    LOG.warn("a listener of refused writes threw", e);
                }
            }
        }
    }

    /** Returns a known role's handle. */
    synchronized RoleHandle handle(String role) {
        Objects.requireNonNull(role, "role");
        RoleHandle handle = LeadershipSettings.isRoleName(role) ? roles.get(Role.of(role)) : null;
        if (handle == null) {
            throw new IllegalArgumentException("role '" + role + "' is not led here; this instance campaigns for "
                    + roles.keySet() + " (name a role under cosid.leadership.roles or in @LeaderOnly)");
        }
        return handle;
    }

    /** Returns the transport the electors run on. */
    CoordinationTransport transport() {
        return transport;
    }

    /** Returns a name of the transport for reports, such as {@code kafka localhost:9092}. */
    String transportName() {
        return transportName;
    }

    /** Returns the settings. */
    LeadershipSettings settings() {
        return settings;
    }

    /**
     * Campaigns for a role too, with the default policy unless it is configured: a role a {@link LeaderOnly}
     * method names. Started at once if the leadership is running.
     */
    synchronized void addRole(Role role) {
        if (roles.containsKey(role)) {
            return;
        }
        LeadershipSettings.RolePolicy policy = settings.policyOf(role);
        RoleGate gate = new RoleGate(role.name(), clock);
        RoleHandle handle = new RoleHandle(policy, gate,
                new RoleWatch(role, gate, clock, listeners, events::publishEvent, this));
        roles.put(role, handle);
        if (running) {
            handle.elector = elector(handle).start();
        }
    }

    private Elector elector(RoleHandle handle) {
        LeadershipSettings.RolePolicy policy = handle.policy;
        return Elector.builder(transport, policy.role(), settings.member())
                .config(policy.config())
                .clock(clock)
                .retryInterval(settings.retry())
                .revokeMargin(policy.revokeMargin())
                .listener(handle.watch)
                .work(handle.gate.work(policy.revokeMargin()))
                .build();
    }

    /** Starts one elector per role; the first step of each reads the role on the elector's own thread. */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        if (roles.isEmpty()) {
            LOG.warn("cosid.leadership is enabled but names no role: add one under cosid.leadership.roles or "
                    + "annotate a method with @LeaderOnly");
        }
        for (RoleHandle handle : roles.values()) {
            handle.elector = elector(handle).start();
        }
        LOG.info("campaigning as {} for roles {} on {}", settings.member(), roles.keySet(), transportName);
    }

    /**
     * Closes every elector: interrupts the roles' {@code @LeaderOnly} calls and waits for them (at most each role's
     * revoke margin), resigns the roles held, and leaves the rosters. The calls run outside this object's lock, so
     * a call still inside may ask it questions.
     */
    @Override
    public void stop() {
        List<Elector> electors = new ArrayList<>();
        synchronized (this) {
            running = false;
            for (RoleHandle handle : roles.values()) {
                if (handle.elector != null) {
                    electors.add(handle.elector);
                }
            }
        }
        for (Elector elector : electors) {
            try {
                elector.close();
            } catch (RuntimeException e) {
                LOG.warn("could not close the elector of role '{}' cleanly", elector.role(), e);
            }
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public void destroy() {
        stop();
    }

    @Override
    public synchronized String toString() {
        return "CosIdLeadership[" + settings.member() + ", roles " + roles.keySet() + ", " + transportName + "]";
    }
}
