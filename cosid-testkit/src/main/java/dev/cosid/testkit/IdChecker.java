package dev.cosid.testkit;

import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.lease.SlotLease;
import java.util.ArrayList;
import java.util.Comparator;
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
    /** Per slot, per lease (fence and holder: a store that stepped back may hand a fence out twice), its span. */
    private final Map<Integer, Map<String, long[]>> spans = new HashMap<>();
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
        long[] span = spans.computeIfAbsent(parts.slot(), slot -> new HashMap<>())
                .computeIfAbsent("fence " + window.fence() + " of " + window.owner(),
                        lease -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
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
        for (Map.Entry<Integer, Map<String, long[]>> slot : new TreeMap<>(spans).entrySet()) {
            // in the order the leases started issuing, each must start past every earlier one's end
            List<Map.Entry<String, long[]>> leases = new ArrayList<>(slot.getValue().entrySet());
            leases.sort(Comparator.comparingLong((Map.Entry<String, long[]> lease) -> lease.getValue()[0])
                    .thenComparing(Map.Entry::getKey));
            long latestEnd = Long.MIN_VALUE;
            String latest = null;
            for (Map.Entry<String, long[]> lease : leases) {
                if (lease.getValue()[0] <= latestEnd && all.size() < MAX_REPORTED) {
                    all.add("slot " + slot.getKey() + ": " + lease.getKey() + " issued from " + lease.getValue()[0]
                            + " but " + latest + " issued up to " + latestEnd);
                }
                if (lease.getValue()[1] > latestEnd) {
                    latestEnd = lease.getValue()[1];
                    latest = lease.getKey();
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
