package dev.cosid.testkit;

import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.lease.SlotLease;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Sees every issued id and checks the three facts uniqueness rests on: no id twice, every id's unit
 * inside the window it was issued under, and windows of successive holders of a slot never
 * overlapping (every id of a later fence lies after every id of an earlier one).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * IdChecker checker = new IdChecker(IdLayout.MILLISECOND);
 * SlotLease window = runtime.lease();
 * checker.issued(ids.nextId(), window);
 * assertEquals(List.of(), checker.violations());
 * }</pre>
 */
public final class IdChecker {

    private static final int MAX_REPORTED = 20;

    private final IdLayout layout;
    private final Set<Long> seen = new HashSet<>();
    private final Map<Integer, TreeMap<Long, long[]>> spans = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private long count;

    /**
     * Creates a checker for one id space.
     *
     * @param layout the ids' layout
     */
    public IdChecker(IdLayout layout) {
        this.layout = layout;
    }

    /**
     * Records one issued id.
     *
     * @param id the id
     * @param window the lease it was issued under
     */
    public void issued(long id, SlotLease window) {
        count++;
        if (!seen.add(id)) {
            violate("id " + id + " (" + layout.friendly(id) + ") was issued twice");
        }
        IdParts parts = layout.parse(id);
        long start = parts.timestampMillis();
        long end = start + layout.unitMillis() - 1;
        if (parts.slot() != window.slot()) {
            violate("id " + id + " names slot " + parts.slot() + " but was issued under slot " + window.slot());
        }
        if (start <= window.floor() || end > window.ceiling()) {
            violate("id " + id + " covers " + start + ".." + end + ", outside the window (" + window.floor() + ", "
                    + window.ceiling() + "] of slot " + window.slot() + " fence " + window.fence());
        }
        long[] span = spans.computeIfAbsent(parts.slot(), slot -> new TreeMap<>())
                .computeIfAbsent(window.fence(), fence -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
        span[0] = Math.min(span[0], start);
        span[1] = Math.max(span[1], end);
    }

    /** Returns how many ids were recorded. */
    public long count() {
        return count;
    }

    /** Returns every violation found, including overlaps between the holders of a slot. */
    public List<String> violations() {
        List<String> all = new ArrayList<>(violations);
        for (Map.Entry<Integer, TreeMap<Long, long[]>> slot : spans.entrySet()) {
            long latestEnd = Long.MIN_VALUE;
            long latestFence = -1;
            for (Map.Entry<Long, long[]> fence : slot.getValue().entrySet()) {
                if (fence.getValue()[0] <= latestEnd && all.size() < MAX_REPORTED) {
                    all.add("slot " + slot.getKey() + ": fence " + fence.getKey() + " issued from "
                            + fence.getValue()[0] + " but fence " + latestFence + " issued up to " + latestEnd);
                }
                if (fence.getValue()[1] > latestEnd) {
                    latestEnd = fence.getValue()[1];
                    latestFence = fence.getKey();
                }
            }
        }
        return all;
    }

    private void violate(String message) {
        if (violations.size() < MAX_REPORTED) {
            violations.add(message);
        }
    }
}
