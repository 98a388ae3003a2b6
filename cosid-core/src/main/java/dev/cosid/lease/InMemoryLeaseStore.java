package dev.cosid.lease;

import dev.cosid.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * A lease store in this process's memory, for tests and single-process use.
 *
 * <p>Each operation runs {@link LeaseTransitions} under one lock with the store's own clock, which
 * tests can move independently of the runtime's.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * ManualClock storeClock = new ManualClock(Instant.parse("2026-12-01T00:00:00Z"));
 * LeaseStore store = new InMemoryLeaseStore(storeClock);
 * }</pre>
 */
public final class InMemoryLeaseStore implements LeaseStore {

    private final Clock clock;
    private final Map<String, NamespaceRecord> namespaces = new HashMap<>();
    private final Map<String, TreeMap<Integer, SlotRecord>> slots = new HashMap<>();
    private final Map<String, Map<String, LayoutRecord>> layouts = new HashMap<>();
    private final Map<String, TreeMap<String, Long>> segments = new HashMap<>();

    /** Creates a store on the system clock. */
    public InMemoryLeaseStore() {
        this(Clock.system());
    }

    /**
     * Creates a store on the given clock.
     *
     * @param clock the store's clock
     */
    public InMemoryLeaseStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        Namespaces.require(namespace);
        return namespaces.computeIfAbsent(namespace, name -> proposed);
    }

    @Override
    public synchronized Optional<NamespaceRecord> namespace(String namespace) {
        return Optional.ofNullable(namespaces.get(Namespaces.require(namespace)));
    }

    @Override
    public synchronized LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        Namespaces.require(namespace);
        Names.require(name);
        Objects.requireNonNull(proposed, "proposed");
        return layouts.computeIfAbsent(namespace, ns -> new HashMap<>()).computeIfAbsent(name, n -> proposed);
    }

    @Override
    public synchronized SlotTable read(String namespace) {
        Namespaces.require(namespace);
        return new SlotTable(namespace, clock.nowMillis(),
                new ArrayList<>(slots.getOrDefault(namespace, new TreeMap<>()).values()));
    }

    @Override
    public synchronized Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        long now = clock.nowMillis();
        return apply(namespace, slot, LeaseTransitions.fresh(slot, now, terms), true,
                current -> LeaseTransitions.acquire(current, owner, now, terms));
    }

    @Override
    public synchronized Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        return apply(lease.namespace(), lease.slot(), null, false, current ->
                LeaseTransitions.renew(current, lease.owner(), lease.fence(), clock.nowMillis(), terms));
    }

    @Override
    public synchronized boolean release(SlotLease lease, long lastIssuedMillis) {
        return apply(lease.namespace(), lease.slot(), null, false, current ->
                LeaseTransitions.release(current, lease.owner(), lease.fence(), lastIssuedMillis)).isPresent();
    }

    /**
     * Applies a transition to a slot's record, or to {@code absent} when it has none; a renewal or a
     * release (no {@code absent}) of a slot or namespace whose record is gone finds no lease.
     */
    private Optional<SlotLease> apply(String namespace, int slot, SlotRecord absent, boolean acquiring,
                                      Function<SlotRecord, Optional<SlotRecord>> transition) {
        Namespaces.require(namespace);
        NamespaceRecord record = namespaces.get(namespace);
        if (record == null) {
            if (!acquiring) {
                return Optional.empty();
            }
            throw new IllegalStateException("namespace '" + namespace + "' is not registered");
        }
        Namespaces.requireSlot(slot, record.limit());
        TreeMap<Integer, SlotRecord> table = slots.computeIfAbsent(namespace, name -> new TreeMap<>());
        SlotRecord current = table.getOrDefault(slot, absent);
        if (current == null) {
            return Optional.empty();
        }
        Optional<SlotRecord> next = transition.apply(current);
        next.ifPresent(changed -> table.put(slot, changed));
        long now = clock.nowMillis();
        boolean takenOver = acquiring && LeaseTransitions.takesOver(current);
        return next.map(changed -> changed.toLease(namespace, now, takenOver));
    }

    /**
     * Returns a copy of every slot record of a namespace: what a replica holds at this moment.
     *
     * @param namespace the namespace
     * @return the records, lowest slot first
     */
    public synchronized List<SlotRecord> records(String namespace) {
        return new ArrayList<>(slots.getOrDefault(namespace, new TreeMap<>()).values());
    }

    /**
     * Steps slot records back to an earlier copy, as a failover to a replica that lagged behind does:
     * each chosen slot gets its record from the copy, or none when the copy had none. The namespace
     * record stays.
     *
     * @param namespace the namespace
     * @param copy records returned by {@link #records(String)} earlier
     * @param slots the slots to step back
     */
    public synchronized void revert(String namespace, List<SlotRecord> copy, IntPredicate slots) {
        Namespaces.require(namespace);
        TreeMap<Integer, SlotRecord> table = this.slots.computeIfAbsent(namespace, name -> new TreeMap<>());
        table.keySet().removeIf(slots::test);
        for (SlotRecord record : copy) {
            if (slots.test(record.slot())) {
                table.put(record.slot(), record);
            }
        }
    }

    @Override
    public synchronized SegmentRange reserveSegment(String namespace, String name, long size) {
        requireSegment(namespace, name);
        if (size < 1) {
            throw new IllegalArgumentException("a segment reservation takes at least 1 id, not " + size);
        }
        TreeMap<String, Long> counters = segments.computeIfAbsent(namespace, ns -> new TreeMap<>());
        long current = counters.getOrDefault(name, 0L);
        long last = Math.addExact(current, size);
        counters.put(name, last);
        return new SegmentRange(namespace, name, current + 1, last);
    }

    @Override
    public synchronized boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        requireSegment(range.namespace(), range.name());
        if (lastIssued < range.first() - 1 || lastIssued > range.last()) {
            throw new IllegalArgumentException("last issued id " + lastIssued + " lies outside " + range);
        }
        TreeMap<String, Long> counters = segments.computeIfAbsent(range.namespace(), ns -> new TreeMap<>());
        if (counters.getOrDefault(range.name(), 0L) != range.last()) {
            return false;
        }
        counters.put(range.name(), lastIssued);
        return true;
    }

    @Override
    public synchronized long raiseSegment(String namespace, String name, long atLeast) {
        requireSegment(namespace, name);
        return segments.computeIfAbsent(namespace, ns -> new TreeMap<>()).merge(name, atLeast, Math::max);
    }

    @Override
    public synchronized SortedMap<String, Long> segments(String namespace) {
        Namespaces.require(namespace);
        return new TreeMap<>(segments.getOrDefault(namespace, new TreeMap<>()));
    }

    private void requireSegment(String namespace, String name) {
        Namespaces.require(namespace);
        Names.require(name);
        if (!namespaces.containsKey(namespace)) {
            throw new IllegalStateException("namespace '" + namespace + "' is not registered");
        }
    }

    @Override
    public String describe() {
        return "memory:";
    }

    @Override
    public void close() {
        // nothing to release: the records live as long as this object
    }
}
