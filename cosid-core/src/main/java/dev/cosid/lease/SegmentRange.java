package dev.cosid.lease;

/**
 * A range of segment ids reserved from one name's counter: the ids {@code first..last}, both
 * included. The store moved the counter from {@code first - 1} to {@code last} in one atomic
 * operation, so no other reservation of the same name overlaps it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SegmentRange range = store.reserveSegment("orders", "invoice", 1_000);
 * long size = range.size(); // 1000
 * }</pre>
 *
 * @param namespace the namespace the counter lives in
 * @param name the segment name
 * @param first the first id of the range, at least 1
 * @param last the last id of the range, at least {@code first}
 */
public record SegmentRange(String namespace, String name, long first, long last) {

    /** Checks the bounds. */
    public SegmentRange {
        if (first < 1 || last < first) {
            throw new IllegalArgumentException(
                    "a segment range is first..last with 1 <= first <= last, not " + first + ".." + last);
        }
    }

    /** @return the number of ids in the range */
    public long size() {
        return last - first + 1;
    }
}
