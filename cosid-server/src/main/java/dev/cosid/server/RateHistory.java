package dev.cosid.server;

/**
 * Ids issued per second over the last minutes: one rate per sample, in a ring.
 *
 * <p>Each {@link #sample} takes the total issued so far and the time; the rate is the difference to
 * the previous sample over the time between them, so a late sample still reports a true average.
 */
final class RateHistory {

    private final double[] rates;
    private int size;
    private int next;
    private long lastMillis = Long.MIN_VALUE;
    private long lastTotal;
    private long untilMillis;

    RateHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is less than 1");
        }
        this.rates = new double[capacity];
    }

    /**
     * Records the total at an instant; the first sample only sets the baseline, and a sample that is
     * not later than the previous one is ignored (a clock that stepped back).
     */
    synchronized void sample(long nowMillis, long totalIssued) {
        if (lastMillis == Long.MIN_VALUE) {
            lastMillis = nowMillis;
            lastTotal = totalIssued;
            return;
        }
        if (nowMillis <= lastMillis) {
            return;
        }
        rates[next] = (totalIssued - lastTotal) * 1000.0 / (nowMillis - lastMillis);
        next = (next + 1) % rates.length;
        size = Math.min(size + 1, rates.length);
        lastMillis = nowMillis;
        lastTotal = totalIssued;
        untilMillis = nowMillis;
    }

    /** Returns the rates, oldest first. */
    synchronized double[] rates() {
        double[] copy = new double[size];
        for (int i = 0; i < size; i++) {
            copy[i] = rates[(next - size + i + rates.length) % rates.length];
        }
        return copy;
    }

    /** Returns when the newest rate was taken, or 0 before the second sample. */
    synchronized long untilMillis() {
        return untilMillis;
    }
}
