package dev.cosid;

import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A deliberately broken copy of {@link LeasedSnowflake}, for the negative controls of
 * {@link LeasedSnowflakeLincheckTest}: the same code with one {@link Flaw} switched on, so that the Lincheck
 * test is shown to catch it. Test code only; the production class has no such switch.
 */
final class FlawedLeasedSnowflake implements SnowflakeId {

    private static final int HELD_NONE = 0;
    private static final int HELD_FLOOR = 1;
    private static final int HELD_CEILING = 2;
    private static final int HELD_SEQUENCE = 3;
    private static final int HELD_CLOCK_BEHIND = 4;
    private static final int HELD_BEFORE_EPOCH = 5;
    private static final int HELD_PAST_END = 6;
    /** Busy-wait this long before parking: a used-up sequence frees up within one unit. */
    private static final long SPIN_NANOS = 2_000_000L;
    private static final int SPIN_LIMIT = 200_000;
    private static final long PARK_NANOS = 1_000_000L;

    /** The one thing broken in this copy. */
    enum Flaw {
        /** The fast path issues under its cached window without comparing its binding with the keeper's. */
        FAST_PATH_IGNORES_BINDING,
        /** Close sets the closed bit on the word it read, with no compare-and-set against a racing id. */
        CLOSE_WITHOUT_CAS,
        /** The window's last unit is computed as {@code ceiling - epoch + unitMillis + 1}. */
        LAST_UNIT_PAST_CEILING
    }

    private final Flaw flaw;
    private final String name;
    private final IdLayout layout;
    private final SlotKeeper keeper;
    private final Clock clock;
    private final long maxWaitNanos;
    /** How far past the clock's reading a new unit may start; 0 waits for the clock. */
    private final long leadMillis;
    private final long epoch;
    private final long unitMillis;
    private final int sequenceBits;
    private final int timestampShift;
    private final long sequenceMask;
    private final long slotMask;
    private final long lastUsableUnit;

    /** {@code lastId + 1}, 0 before the first id; the sign bit marks the generator closed. */
    private final PaddedWord state = new PaddedWord();
    private Bounds bounds;
    /** The ids of every unit this generator has moved on from. */
    private final AtomicLong issuedInPastUnits = new AtomicLong();
    /** The largest issued count reported, so a reading races a unit change without going down. */
    private final AtomicLong issuedReported = new AtomicLong();
    private final AtomicLongArray refusals = new AtomicLongArray(IdUnavailableException.Reason.values().length);

    FlawedLeasedSnowflake(Flaw flaw, String name, IdLayout layout, SlotKeeper keeper, Clock clock,
                          long maxWaitNanos, long leadMillis) {
        this.flaw = flaw;
        this.name = name;
        this.layout = layout;
        this.keeper = keeper;
        this.clock = clock;
        this.maxWaitNanos = maxWaitNanos;
        this.leadMillis = leadMillis;
        this.epoch = layout.epochMillis();
        this.unitMillis = layout.unitMillis();
        this.sequenceBits = layout.sequenceBits();
        this.timestampShift = layout.slotBits() + layout.sequenceBits();
        this.sequenceMask = layout.maxSequence();
        this.slotMask = layout.slotCount() - 1;
        // the last unit is left unused so that lastId + 1 never reaches the sign bit
        this.lastUsableUnit = layout.timestampBits() == 63 ? Long.MAX_VALUE - 1 : (1L << layout.timestampBits()) - 2;
    }

    @Override
    public IdLayout layout() {
        return layout;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public GeneratorStats stats() {
        long word = state.getVolatile() & Long.MAX_VALUE;
        long inCurrentUnit = word == 0 ? 0 : ((word - 1) & sequenceMask) + 1;
        long issued = issuedReported.accumulateAndGet(issuedInPastUnits.get() + inCurrentUnit, Math::max);
        Map<IdUnavailableException.Reason, Long> refused = new EnumMap<>(IdUnavailableException.Reason.class);
        for (IdUnavailableException.Reason reason : IdUnavailableException.Reason.values()) {
            refused.put(reason, refusals.get(reason.ordinal()));
        }
        long lastIssued = word == 0 ? -1 : layout.endOf((word - 1) >>> timestampShift);
        return new GeneratorStats(name, layout, issued, refused, lastIssued);
    }

    @Override
    public long nextId() {
        // fast path: the state word is lastId + 1. If its unit and slot bits name the unit the clock
        // showed and this binding's slot, and its sequence is not 0 (a used-up sequence carries into
        // the slot bits), the word itself is the next id: greater than the last, in a unit the clock
        // has reached, on the leased slot, inside the window (checked for that unit). The closed bit
        // fails the comparison; a cached window of an older binding fails the binding test. The clock
        // is read before the word, so a lost CAS retries at once: the winner took the sequence before.
        // A word whose unit lies past the clock's (entered under a lead, or before the clock stepped
        // back) is continued while that unit lies inside the window, as reserve() would. The first
        // exchange starts from the word the last one left (a plain read of a guess): a stale guess fails the
        // exchange, which returns the word, and a guess that looks unusable is checked against the word
        // before the slow path is taken.
        long nowUnit = unitOf(clock.nowMillis());
        Bounds window = bounds;
        // minUnit <= nowUnit <= maxUnit in one unsigned comparison (an empty window has no units)
        if (window != null && (flaw == Flaw.FAST_PATH_IGNORES_BINDING || window.binding == keeper.binding)
                && Long.compareUnsigned(nowUnit - window.minUnit, window.units) < 0) {
            long expected = (nowUnit << timestampShift) | window.slotPart;
            long current = state.hint();
            for (;;) {
                // ~sequenceMask keeps the closed, unit and slot bits; a closed word is negative
                long high = current & ~sequenceMask;
                if ((high != expected && (high < expected || high > window.maxHigh
                        || (high & window.slotField) != window.slotPart)) || (current & sequenceMask) == 0) {
                    long actual = state.getVolatile();
                    if (actual == current) {
                        break;
                    }
                    current = actual;
                    continue;
                }
                long found = state.compareAndExchange(current, current + 1);
                if (found == current) {
                    state.hint(current + 1);
                    return current;
                }
                current = found;
            }
        }
        return reserve(1);
    }

    /** Returns the unit of this layout that holds the given millisecond. */
    private long unitOf(long millis) {
        return unitMillis == 1 ? millis - epoch : Math.floorDiv(millis - epoch, unitMillis);
    }

    @Override
    public long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count + " is less than 1");
        }
        long[] ids = new long[count];
        int filled = 0;
        while (filled < count) {
            long first = reserve(count - filled);
            long run = Math.min(count - filled, sequenceMask - (first & sequenceMask) + 1);
            for (long i = 0; i < run; i++) {
                ids[filled++] = first + i;
            }
        }
        return ids;
    }

    /**
     * Reserves up to {@code wanted} consecutive ids of one unit and returns the first; the number
     * reserved is {@code min(wanted, sequences left in that unit)}.
     */
    private long reserve(long wanted) {
        boolean waiting = false;
        long waitStart = 0;
        int spins = 0;
        for (;;) {
            Bounds window = bounds();
            long current = state.getVolatile();
            if (current < 0) {
                throw refused(closed());
            }
            long now = clock.nowMillis();
            long nowUnit = unitOf(now);
            // the last unit that starts at most leadMillis after now
            long leadUnit = leadMillis == 0 ? nowUnit : unitOf(now + leadMillis);
            long unit;
            long sequence = 0;
            long lastUnit = Long.MIN_VALUE;
            int held = HELD_NONE;
            if (current == 0) {
                unit = nowUnit;
            } else {
                long last = current - 1;
                lastUnit = last >>> timestampShift;
                long lastSequence = last & sequenceMask;
                boolean sameSlot = ((last >>> sequenceBits) & slotMask) == window.slot;
                if (nowUnit > lastUnit) {
                    unit = nowUnit;
                } else if (sameSlot && lastSequence < sequenceMask) {
                    // continues the unit issued last, even if the clock stepped back
                    unit = lastUnit;
                    sequence = lastSequence + 1;
                } else {
                    unit = lastUnit + 1;
                    if (unit > leadUnit) {
                        // at the lead's end the sequence holds; past it, the clock stepped back
                        held = leadUnit < lastUnit ? HELD_CLOCK_BEHIND : HELD_SEQUENCE;
                    }
                }
            }
            if (held == HELD_NONE && unit < window.minUnit && window.minUnit <= leadUnit) {
                // a floor a little ahead of the clock (a release that handed on a led millisecond):
                // its first unit is within the lead. Never taken without a lead: then leadUnit is nowUnit,
                // and a unit below the floor is below the clock's too
                unit = window.minUnit;
                sequence = 0;
            }
            if (held == HELD_NONE) {
                if (unit < window.minUnit) {
                    held = unit < 0 ? HELD_BEFORE_EPOCH : HELD_FLOOR;
                } else if (unit > window.maxUnit) {
                    held = unit > lastUsableUnit ? HELD_PAST_END : HELD_CEILING;
                } else {
                    long count = Math.min(wanted, sequenceMask - sequence + 1);
                    long first = (unit << timestampShift) | window.slotPart | sequence;
                    if (state.compareAndSet(current, first + count)) {
                        if (current != 0 && sequence == 0) {
                            // moved on from the unit (or slot) issued last: count its ids once
                            issuedInPastUnits.addAndGet(((current - 1) & sequenceMask) + 1);
                        }
                        return first;
                    }
                    continue;
                }
            }
            long nowNanos = clock.monotonicNanos();
            if (!waiting) {
                waiting = true;
                waitStart = nowNanos;
            }
            long waited = nowNanos - waitStart;
            if (waited >= maxWaitNanos) {
                throw refused(unavailable(held, window, now, unit, lastUnit, waited));
            }
            if (spins < SPIN_LIMIT && waited < SPIN_NANOS) {
                spins++;
                Thread.onSpinWait();
            } else {
                clock.park(Math.min(PARK_NANOS, maxWaitNanos - waited));
            }
        }
    }

    /**
     * Returns the window of the current binding, or throws if it is not bound. Only a bound binding's
     * window is cached, so the fast path, which compares the cached binding with the keeper's, never
     * issues under a lost or closed one.
     */
    private Bounds bounds() {
        Binding current = keeper.binding;
        if (current.state != Binding.State.BOUND) {
            SlotLease lost = current.lease;
            if (current.state == Binding.State.LOST) {
                throw refused(new SlotLostException("generator '" + name + "': the lease on slot " + lost.slot()
                        + " of namespace '" + lost.namespace() + "' (fence " + lost.fence() + ") was lost"
                        + (current.reason == null ? "" : ": " + current.reason)
                        + "; no id is issued until a new slot is bound"));
            }
            if (current.state == Binding.State.FAILED) {
                throw refused(new IdUnavailableException(IdUnavailableException.Reason.CLOSED, "generator '" + name
                        + "': the runtime of namespace '" + lost.namespace() + "' stopped for good: " + current.reason));
            }
            throw refused(closed());
        }
        Bounds cached = bounds;
        if (cached == null || cached.binding != current) {
            cached = new Bounds(current);
            bounds = cached;
        }
        return cached;
    }

    /**
     * Closes the generator atomically with issuing.
     *
     * @return the exact last issued millisecond: the end of the last unit issued, or the floor of the
     *     current lease if none was issued
     */
    long close() {
        for (;;) {
            long current = state.getVolatile();
            if (flaw == Flaw.CLOSE_WITHOUT_CAS && current >= 0) {
                // a blind write of the word read: an id issued since is overwritten and not counted
                state.compareAndSet(state.getVolatile(), current | Long.MIN_VALUE);
                return lastIssuedMillis(current);
            }
            if (current < 0 || state.compareAndSet(current, current | Long.MIN_VALUE)) {
                return lastIssuedMillis(current & Long.MAX_VALUE);
            }
        }
    }

    /** Returns the exact last issued millisecond, or the current floor before the first id. */
    long lastIssuedMillis() {
        return lastIssuedMillis(state.getVolatile() & Long.MAX_VALUE);
    }

    private long lastIssuedMillis(long word) {
        if (word == 0) {
            return keeper.binding.lease.floor();
        }
        return layout.endOf((word - 1) >>> timestampShift);
    }

    private IdUnavailableException closed() {
        return new IdUnavailableException(IdUnavailableException.Reason.CLOSED, "generator '" + name + "' is closed");
    }

    private <E extends IdUnavailableException> E refused(E refusal) {
        refusals.incrementAndGet(refusal.reason().ordinal());
        return refusal;
    }

    private IdUnavailableException unavailable(int held, Bounds window, long now, long unit, long lastUnit,
                                               long waitedNanos) {
        SlotLease lease = window.binding.lease;
        String where = "generator '" + name + "' on slot " + lease.slot() + " of namespace '" + lease.namespace()
                + "', window (" + lease.floor() + ", " + lease.ceiling() + "]: ";
        String waited = " (waited " + waitedNanos / 1_000_000 + " ms)";
        switch (held) {
            case HELD_BEFORE_EPOCH:
                return new IdUnavailableException(IdUnavailableException.Reason.CLOCK_OUT_OF_RANGE, where
                        + "the clock at " + now + " ms (" + java.time.Instant.ofEpochMilli(now) + ") is before the epoch "
                        + epoch + " ms (" + java.time.Instant.ofEpochMilli(epoch) + ") of the layout " + layout
                        + "; check the host's clock" + waited);
            case HELD_PAST_END:
                return new IdUnavailableException(IdUnavailableException.Reason.CLOCK_OUT_OF_RANGE, where
                        + "the clock at " + now + " ms (" + java.time.Instant.ofEpochMilli(now) + ") is past the last "
                        + "unit of the layout " + layout + ", which ends at " + layout.endOf(lastUsableUnit) + " ms ("
                        + java.time.Instant.ofEpochMilli(layout.endOf(lastUsableUnit)) + "); check the host's clock, "
                        + "or move to a layout with a later epoch or more timestamp bits" + waited);
            case HELD_FLOOR:
                return new IdUnavailableException(IdUnavailableException.Reason.FLOOR, where + "held by the floor: the clock at " + now
                        + " ms has not passed the floor " + lease.floor() + " ms" + waited);
            case HELD_CEILING:
                return new IdUnavailableException(IdUnavailableException.Reason.CEILING, where + "held by the ceiling: the unit " + layout.startOf(unit)
                        + ".." + layout.endOf(unit) + " ms ends past the ceiling " + lease.ceiling()
                        + " ms and no renewal raised it" + waited);
            case HELD_CLOCK_BEHIND:
                return new IdUnavailableException(IdUnavailableException.Reason.CLOCK_BEHIND, where + "held by the clock behind last issued: the clock at "
                        + now + " ms is behind the last issued unit " + layout.startOf(lastUnit) + ".."
                        + layout.endOf(lastUnit) + " ms, whose sequence is used up" + waited);
            default:
                return new IdUnavailableException(IdUnavailableException.Reason.SEQUENCE, where + "held by the sequence: all " + (sequenceMask + 1)
                        + " ids of the unit " + layout.startOf(lastUnit) + ".." + layout.endOf(lastUnit)
                        + " ms are issued and the clock at " + now + " ms has not reached the next unit"
                        + (leadMillis == 0 ? "" : " nor come within the lead of " + leadMillis + " ms of it") + waited);
        }
    }

    /** The window of one binding in units of this layout, computed once per binding. */
    private final class Bounds {
        final Binding binding;
        final int slot;
        final long slotPart;
        /** The first unit that starts after the floor. */
        final long minUnit;
        /** The last unit that ends at or before the ceiling. */
        final long maxUnit;
        /** How many units the window holds, {@code maxUnit - minUnit + 1}, or 0. */
        final long units;
        /** The unit and slot bits of the last unit's ids: the largest high part the fast path continues. */
        final long maxHigh;
        /** The slot bits of a word. */
        final long slotField;

        Bounds(Binding binding) {
            this.binding = binding;
            SlotLease lease = binding.lease;
            this.slot = lease.slot();
            this.slotPart = (long) slot << sequenceBits;
            this.minUnit = Math.max(0, Math.floorDiv(lease.floor() - epoch, unitMillis) + 1);
            this.maxUnit = Math.min(lastUsableUnit,
                    Math.floorDiv(flaw == Flaw.LAST_UNIT_PAST_CEILING ? lease.ceiling() - epoch + unitMillis + 1
                            : lease.ceiling() - epoch - unitMillis + 1, unitMillis));
            this.units = Math.max(0, maxUnit - minUnit + 1);
            this.maxHigh = maxUnit < 0 ? -1 : (maxUnit << timestampShift) | slotPart;
            this.slotField = slotMask << sequenceBits;
        }
    }
}
