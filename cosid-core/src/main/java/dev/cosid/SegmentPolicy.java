package dev.cosid;

import java.time.Duration;

/**
 * How a {@link SegmentId} sizes the ranges it reserves: each new range holds about {@code prefetch}
 * of use at the rate observed, at least {@code minStep} and at most {@code maxStep} ids. The chain
 * keeps one range or {@code prefetch} of ids ahead, whichever is more, and reserves more in the
 * background when half of that is left, so callers never wait while the store answers within about half
 * the prefetch time. A crash wastes what was kept ahead.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SegmentPolicy fixed = SegmentPolicy.of(100_000, 100_000, Duration.ofSeconds(1)); // always 100,000 ids
 * CosIdRuntime runtime = CosIdRuntime.builder().namespace("shop").store(url).segmentPolicy(fixed).start();
 * }</pre>
 *
 * @param minStep the smallest range, 1 to {@link #STEP_MAX}
 * @param maxStep the largest range, {@code minStep} to {@link #STEP_MAX}
 * @param prefetch how long of use a range holds at the observed rate, 10 ms to 1 h
 * @param limit the most ids the generator reserves in all, 0 for no limit: a run that knows how many
 *     ids it needs (the command line's {@code --count}) reserves exactly those and leaves no tail
 */
public record SegmentPolicy(long minStep, long maxStep, Duration prefetch, long limit) {

    /** The largest range one reservation takes. */
    public static final long STEP_MAX = 1L << 40;
    /** 1,000 to 10,000,000 ids a range, each about one second of use. */
    public static final SegmentPolicy DEFAULT = new SegmentPolicy(1_000, 10_000_000, Duration.ofSeconds(1), 0);

    /** Checks the bounds. */
    public SegmentPolicy {
        if (minStep < 1 || minStep > STEP_MAX) {
            throw new IllegalArgumentException("the segment min step " + minStep + " lies outside 1.." + STEP_MAX);
        }
        if (maxStep < minStep || maxStep > STEP_MAX) {
            throw new IllegalArgumentException("the segment max step " + maxStep + " lies outside the min step "
                    + minStep + ".." + STEP_MAX);
        }
        Limits.check("segment prefetch", prefetch, Duration.ofMillis(10), Duration.ofHours(1));
        if (limit < 0) {
            throw new IllegalArgumentException("the segment limit " + limit + " is negative; 0 means no limit");
        }
    }

    /**
     * Returns a checked policy.
     *
     * @param minStep the smallest range
     * @param maxStep the largest range
     * @param prefetch how long of use a range holds at the observed rate
     * @return the policy
     */
    public static SegmentPolicy of(long minStep, long maxStep, Duration prefetch) {
        return new SegmentPolicy(minStep, maxStep, prefetch, 0);
    }

    /**
     * Returns this policy with a limit on the ids reserved in all.
     *
     * @param ids the most ids the generator reserves, at least 1
     * @return the policy
     */
    public SegmentPolicy withLimit(long ids) {
        if (ids < 1) {
            throw new IllegalArgumentException("the segment limit " + ids + " is less than 1 id");
        }
        return new SegmentPolicy(minStep, maxStep, prefetch, ids);
    }

    /** Returns the size of the first range: the min step, or the limit when smaller. */
    public long firstStep() {
        return limit > 0 ? Math.min(minStep, limit) : minStep;
    }
}
