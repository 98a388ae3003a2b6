package dev.cosid.coordination;

/** Instant arithmetic that saturates at the ends of the time line instead of wrapping. */
final class Saturating {

    private Saturating() {
    }

    static long add(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }

    static long subtract(long a, long b) {
        long difference = a - b;
        if (((a ^ b) & (a ^ difference)) < 0) {
            return b < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return difference;
    }

    static long multiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
            return low;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
}
