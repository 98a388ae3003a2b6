package dev.cosid;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What one generator has done so far: the ids it issued and the calls it refused, by reason.
 *
 * <p>Counting costs nothing per id: the generator adds up a unit's ids when it moves on to the next
 * unit, and reads the current unit's count off its state word. The figures are exact once the
 * generator is quiet and never go down.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GeneratorStats stats = runtime.snowflake("order").stats();
 * long refusedAtTheCeiling = stats.refused(IdUnavailableException.Reason.CEILING);
 * }</pre>
 *
 * @param name the generator's id space
 * @param layout its layout
 * @param issued the ids issued
 * @param refusals the calls refused with {@link IdUnavailableException}, by reason
 * @param lastIssuedMillis the exact last millisecond issued, or -1 before the first id
 */
public record GeneratorStats(String name, IdLayout layout, long issued,
                             Map<IdUnavailableException.Reason, Long> refusals, long lastIssuedMillis) {

    /** Copies the refusals, with a zero for every reason that has none. */
    public GeneratorStats {
        EnumMap<IdUnavailableException.Reason, Long> all = new EnumMap<>(IdUnavailableException.Reason.class);
        for (IdUnavailableException.Reason reason : IdUnavailableException.Reason.values()) {
            all.put(reason, refusals.getOrDefault(reason, 0L));
        }
        refusals = Collections.unmodifiableMap(all);
    }

    /**
     * Returns the calls refused for one reason.
     *
     * @param reason the reason
     * @return the count
     */
    public long refused(IdUnavailableException.Reason reason) {
        return refusals.get(reason);
    }

    /** Returns the calls refused for every reason together. */
    public long refusedTotal() {
        return refusals.values().stream().mapToLong(Long::longValue).sum();
    }
}
