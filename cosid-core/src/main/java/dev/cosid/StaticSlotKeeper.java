package dev.cosid;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import dev.cosid.time.Scheduler;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the window of a static slot, which the deployment guarantees to be unique, with no store:
 * the ceiling is written and fsynced to the state file before any id may use it, and moved ahead
 * in the background when less than {@code ahead/2} remains. After a restart the floor is
 * {@code max(ceiling in the file, not-before)}, so a crash followed by a clock set back cannot
 * repeat an id.
 *
 * <p>While the runtime runs it holds an exclusive lock on the state file ({@link StateFileLock}), so a
 * second process configured with the same file is refused. The state file also keeps the layout of
 * every id space the slot issued in, so a later run cannot issue another layout's ids there.
 */
final class StaticSlotKeeper extends SlotKeeper {

    private static final Logger LOG = LoggerFactory.getLogger(StaticSlotKeeper.class);
    private static final long FIRST_BACKOFF_MILLIS = 100;

    private final String namespace;
    private final int slot;
    /** The configured path, for messages; null without a state file. */
    private final Path configuredFile;
    private final long aheadMillis;
    private final long notBefore;
    private final Owner owner;
    private final Clock clock;
    private final CosIdListener listener;
    private final Map<String, LayoutRecord> layouts = new HashMap<>();
    /** The file written: the configured path, or the target of a symbolic link; null without a state file. */
    private Path stateFile;
    private StateFileLock fileLock;
    private int failures;

    StaticSlotKeeper(String namespace, int slot, Path stateFile, Duration ahead, long notBefore, Owner owner,
                     Clock clock, Scheduler scheduler, CosIdListener listener) {
        super(scheduler, clock);
        this.namespace = namespace;
        this.slot = slot;
        this.configuredFile = stateFile;
        this.aheadMillis = ahead.toMillis();
        this.notBefore = notBefore;
        this.owner = owner;
        this.clock = clock;
        this.listener = listener;
    }

    @Override
    void start(Duration acquireTimeout) {
        long floor = notBefore;
        if (configuredFile == null) {
            LOG.warn("static slot {} of namespace '{}' has no state file: a clock set back across a restart can "
                    + "repeat ids. Set cosid.machine.static.state-file in production", slot, namespace);
        } else {
            stateFile = StateFile.resolve(configuredFile);
            fileLock = StateFileLock.acquire(stateFile, owner.key(), clock.nowMillis());
            try {
                Optional<StateFile.State> state = StateFile.read(stateFile);
                if (state.isPresent()) {
                    StateFile.State stored = state.get();
                    if (!stored.namespace().equals(namespace) || stored.slot() != slot) {
                        throw new StateFileException("the state file " + configuredFile + " belongs to namespace '"
                                + stored.namespace() + "' slot " + stored.slot() + ", not namespace '" + namespace
                                + "' slot " + slot + ". It is left as it is. Point state-file at this slot's own file; "
                                + "if this slot never had one, start it with a new file path", null);
                    }
                    floor = Math.max(floor, stored.ceiling());
                    layouts.putAll(stored.layouts());
                }
            } catch (RuntimeException e) {
                fileLock.close();
                throw e;
            }
        }
        long now = clock.nowMillis();
        synchronized (lock) {
            try {
                // a clock behind the floor waits to pass it, then still has a whole 'ahead' to issue in
                SlotLease lease = window(floor, Math.max(floor, now) + aheadMillis, now);
                persist(lease.ceiling());
                binding = new Binding(lease, Binding.State.BOUND);
                listener.onSlotAcquired(lease, Duration.ZERO);
                schedule(Duration.ofMillis(Math.max(1, aheadMillis / 4)));
            } catch (RuntimeException e) {
                if (fileLock != null) {
                    fileLock.close();
                }
                throw e;
            }
        }
    }

    private SlotLease window(long floor, long ceiling, long now) {
        return new SlotLease(namespace, slot, owner, 0, ceiling, floor, ceiling, now);
    }

    /** Moves the ceiling ahead once less than half of {@code ahead} remains. */
    @Override
    void step() {
        synchronized (lock) {
            if (stopped()) {
                return;
            }
            SlotLease current = binding.lease;
            long now = clock.nowMillis();
            try {
                if (current.ceiling() - now < aheadMillis / 2) {
                    long ceiling = Math.max(current.ceiling(), now + aheadMillis);
                    persist(ceiling);
                    SlotLease moved = window(current.floor(), ceiling, now);
                    binding = new Binding(moved, Binding.State.BOUND);
                    renewals++;
                    listener.onRenewed(moved);
                }
                failures = 0;
                schedule(Duration.ofMillis(Math.max(1, aheadMillis / 4)));
            } catch (RuntimeException e) {
                failures++;
                renewalFailures++;
                logFailure("cannot move the ceiling of static slot " + slot + " of namespace '" + namespace + "'", e,
                        failures == 1);
                listener.onRenewalFailed(e, failures);
                long backoff = Math.min(FIRST_BACKOFF_MILLIS << Math.min(failures - 1, 20), Math.max(1, aheadMillis / 4));
                schedule(Duration.ofMillis(backoff));
            }
        }
    }

    /**
     * A state file that cannot be written is expected (a full disk): one warning line for the first failure
     * of a run, the retries at debug. Anything else gets its stack trace.
     */
    private void logFailure(String what, RuntimeException e, boolean first) {
        if (!(e instanceof StateFileException)) {
            LOG.error(what, e);
        } else if (first) {
            LOG.warn("{}: {}", what, e.getMessage());
        } else {
            LOG.debug("{} (again): {}", what, e.getMessage());
        }
    }

    /** Records the layout of an id space in the state file before its first id, or returns the recorded one. */
    @Override
    LayoutRecord registerLayout(String name, LayoutRecord proposed) {
        synchronized (lock) {
            LayoutRecord known = layouts.get(name);
            if (known != null) {
                return known;
            }
            layouts.put(name, proposed);
            try {
                persist(binding.lease.ceiling());
            } catch (RuntimeException e) {
                layouts.remove(name);
                throw e;
            }
            return proposed;
        }
    }

    private void persist(long ceiling) {
        if (stateFile != null) {
            StateFile.write(stateFile, new StateFile.State(namespace, slot, ceiling, layouts));
        }
    }

    /** Writes the exact last issued millisecond, so the next start begins right after it. */
    @Override
    void giveBack(SlotLease lease, long lastIssuedMillis) {
        try {
            persist(Math.max(lease.floor(), Math.min(lastIssuedMillis, lease.ceiling())));
        } catch (RuntimeException e) {
            logFailure("cannot write the last issued millisecond of static slot " + slot + " of namespace '"
                    + namespace + "'; the ceiling on disk stays, which is safe", e, true);
        }
    }

    /** Lets the next process have the state file. */
    @Override
    void closed() {
        if (fileLock != null) {
            fileLock.close();
        }
    }
}
