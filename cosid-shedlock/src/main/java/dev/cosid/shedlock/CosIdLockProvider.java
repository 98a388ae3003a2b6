package dev.cosid.shedlock;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.StoreLocks;
import dev.cosid.lease.LeaseStores;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link LockProvider} on the store the ids use, opened by the same URL: SQLite, PostgreSQL,
 * MariaDB/MySQL, H2, Redis (server, Sentinel, Cluster), ZooKeeper or etcd. A {@code @SchedulerLock} job moves
 * over by changing the one {@code LockProvider} bean; the annotations, {@code lockAtMostFor} and
 * {@code lockAtLeastFor} keep ShedLock's meaning.
 *
 * <p><b>The store's clock judges.</b> A lock is taken only when the lock's previous deadline is not ahead of the
 * store's clock, in the same atomic operation that writes the new one ({@code now()} in SQL, {@code TIME} in a
 * Redis script, the {@code mtime} of a ZooKeeper write, an etcd lease's timer); see {@link StoreLocks}. No host's
 * clock decides, so a member whose clock runs ahead does not take a lock early.
 *
 * <p><b>A fencing token per lock.</b> Each lock mints the lock name's next token, the role's fence, greater than
 * every token before. The job reads it with {@link #currentToken()} and hands it to the
 * {@link dev.cosid.coordination.JdbcFence JDBC fence} (or any resource that compares tokens): a holder that was
 * paused past {@code lockAtMostFor} while another instance took the lock then has its writes refused instead of
 * landing after its successor's. Work the token does not reach is only as safe as {@code lockAtMostFor}, as with
 * ShedLock's own providers.
 *
 * <p>The lock name is the role: non-empty, at most 249 UTF-8 bytes; another name fails the lock with
 * {@link IllegalArgumentException}. A lock name and an elected role of the same name share one fence.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider() {   // was: new JdbcTemplateLockProvider(dataSource)
 *     return new CosIdLockProvider("jdbc:postgresql://db:5432/app?user=cosid&password=...");
 * }
 *
 * @Scheduled(fixedDelay = 60_000)
 * @SchedulerLock(name = "billing", lockAtMostFor = "5m")
 * @Transactional
 * public void bill() {
 *     fence.check(DataSourceUtils.getConnection(dataSource), Role.of("billing"),
 *             CosIdLockProvider.currentToken().orElseThrow());   // FencedException once deposed
 *     jdbc.update("insert into invoice ...");
 * }
 * }</pre>
 */
public final class CosIdLockProvider implements LockProvider, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CosIdLockProvider.class);

    /** The locks the thread runs under, innermost first; a lock leaves it when it is released. */
    private static final ThreadLocal<Deque<Held>> HELD = new ThreadLocal<>();

    private final CoordinationTransport transport;
    private final StoreLocks locks;
    private final boolean owned;
    private final MemberId holder;

    /**
     * Opens a provider on a store URL, as {@code CoordinationTransports.open} takes it; the locks name this
     * process as {@code PID@HOST}. The store's module ({@code cosid-jdbc}, {@code cosid-redis},
     * {@code cosid-zookeeper} or {@code cosid-etcd}) must be on the class path.
     *
     * @param storeUrl the store URL
     * @throws IllegalArgumentException when the URL is malformed or no module opens it
     * @throws CoordinationException when the store cannot be reached
     */
    public CosIdLockProvider(String storeUrl) {
        this(storeUrl, defaultHolder());
    }

    /**
     * Opens a provider on a store URL whose locks name a holder of the caller's choice, as ShedLock's
     * {@code lockedBy}.
     *
     * @param storeUrl the store URL
     * @param lockedBy the holder the locks name: non-empty, at most 249 UTF-8 bytes
     * @throws IllegalArgumentException when the URL or the holder is malformed, or no module opens the URL
     * @throws CoordinationException when the store cannot be reached
     */
    public CosIdLockProvider(String storeUrl, String lockedBy) {
        this(CoordinationTransports.open(storeUrl), holder(lockedBy), true, storeUrl);
    }

    /**
     * Uses a transport the caller owns and closes, such as {@code JdbcCoordinationTransport.on(dataSource)}.
     *
     * @param transport a transport that takes locks ({@link StoreLocks}): every store transport does
     * @param lockedBy the holder the locks name
     * @throws IllegalArgumentException when the transport takes no locks (Kafka's) or the holder is malformed
     */
    public CosIdLockProvider(CoordinationTransport transport, String lockedBy) {
        this(Objects.requireNonNull(transport, "transport"), holder(lockedBy), false, transport.toString());
    }

    private CosIdLockProvider(CoordinationTransport transport, MemberId holder, boolean owned, String what) {
        if (!(transport instanceof StoreLocks)) {
            if (owned) {
                transport.close();
            }
            throw new IllegalArgumentException(LeaseStores.redact(what) + " takes no locks: "
                    + transport.getClass().getSimpleName() + " is not a store transport");
        }
        this.transport = transport;
        this.locks = (StoreLocks) transport;
        this.owned = owned;
        this.holder = holder;
    }

    private static MemberId holder(String lockedBy) {
        try {
            return MemberId.of(lockedBy);
        } catch (CoordinationException e) {
            throw new IllegalArgumentException("lockedBy: " + e.getMessage(), e);
        }
    }

    private static String defaultHolder() {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        return ProcessHandle.current().pid() + "@" + host;
    }

    /**
     * Returns the fencing token of the innermost lock the calling thread runs under: from the moment
     * {@link #lock} returns it until it is released. ShedLock takes the lock, runs the task and releases the lock
     * on one thread, with {@code @SchedulerLock} on the method (the default) and on the scheduler alike.
     *
     * @return the token, or empty outside a locked task
     */
    public static Optional<FencingToken> currentToken() {
        Deque<Held> held = HELD.get();
        return held == null || held.isEmpty() ? Optional.empty() : Optional.of(held.peek().token());
    }

    /**
     * Returns the fencing token of the lock of a name the calling thread runs under, for a task that runs inside
     * another locked task.
     *
     * @param lockName the lock's name
     * @return the token, or empty when the thread holds no lock of that name
     */
    public static Optional<FencingToken> currentToken(String lockName) {
        Objects.requireNonNull(lockName, "lockName");
        Deque<Held> held = HELD.get();
        if (held != null) {
            for (Held lock : held) {
                if (lock.name().equals(lockName)) {
                    return Optional.of(lock.token());
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Takes the lock of {@code lockConfiguration.getName()} when the store's clock says its previous holder's
     * deadline has passed, with a new fencing token.
     *
     * @param lockConfiguration the name, {@code lockAtMostFor} and {@code lockAtLeastFor}
     * @return the lock, or empty when another holder has it
     * @throws IllegalArgumentException when the name is not a role name, or {@code lockAtMostFor} is shorter than
     *     a millisecond
     * @throws CoordinationException when the store cannot be reached: the task does not run
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
        String name = lockConfiguration.getName();
        Role role;
        try {
            role = Role.of(name);
        } catch (CoordinationException e) {
            throw new IllegalArgumentException("ShedLock lock name '" + shorten(name) + "' is not a CosId role name ("
                    + e.getMessage() + "): use a name of 1 to 249 UTF-8 bytes", e);
        }
        Duration atMost = lockConfiguration.getLockAtMostFor();
        Duration atLeast = lockConfiguration.getLockAtLeastFor();
        if (atMost.toMillis() < 1) {
            throw new IllegalArgumentException("lock '" + name + "': lockAtMostFor of " + atMost + " is shorter than "
                    + "a millisecond");
        }
        Optional<Lease> lease = locks.tryLock(role, holder, atMost, atLeast);
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        Held held = new Held(name, role, lease.get().token());
        Deque<Held> stack = HELD.get();
        if (stack == null) {
            stack = new ArrayDeque<>();
            HELD.set(stack);
        }
        stack.push(held);
        LOG.debug("locked '{}' with token {} until {} by the store's clock", name, held.token(), lease.get().deadline());
        return Optional.of(new Lock(lockConfiguration, held));
    }

    private static String shorten(String name) {
        return name.length() > 40 ? name.substring(0, 40) + "..." : name;
    }

    /** Closes the store's connections when the provider opened them (the URL constructors). */
    @Override
    public void close() {
        if (owned) {
            transport.close();
        }
    }

    @Override
    public String toString() {
        return "CosIdLockProvider[" + transport + "]";
    }

    /** One lock a thread runs under. */
    private record Held(String name, Role role, FencingToken token) {
    }

    /** The lock ShedLock releases when the task ends. */
    private final class Lock extends AbstractSimpleLock {

        private final Held held;

        Lock(LockConfiguration configuration, Held held) {
            super(configuration);
            this.held = held;
        }

        @Override
        protected void doUnlock() {
            forget();
            Duration atLeast = lockConfiguration.getLockAtLeastFor();
            boolean released;
            try {
                released = locks.unlock(held.role(), held.token(), atLeast);
            } catch (CoordinationException e) {
                LOG.warn("could not release lock '{}' with token {}: it holds until its lockAtMostFor ({}) ends by the "
                        + "store's clock: {}", held.name(), held.token(), lockConfiguration.getLockAtMostFor(),
                        e.getMessage());
                return;
            }
            if (!released) {
                LOG.warn("lock '{}' with token {} was no longer held when its task ended: the task ran past its "
                        + "lockAtMostFor of {} and another holder may have run beside it; only work fenced with the "
                        + "token is refused after that", held.name(), held.token(), lockConfiguration.getLockAtMostFor());
            }
        }

        /** Removes this lock from the thread's locks; a lock released on another thread leaves that thread's. */
        private void forget() {
            Deque<Held> stack = HELD.get();
            if (stack == null) {
                return;
            }
            for (Iterator<Held> it = stack.iterator(); it.hasNext(); ) {
                if (it.next() == held) {
                    it.remove();
                    break;
                }
            }
            if (stack.isEmpty()) {
                HELD.remove();
            }
        }
    }
}
