package dev.cosid;

import java.time.Duration;
import java.time.Instant;

/**
 * The range of every duration and instant a runtime accepts. {@link CosIdRuntime.Builder#start()}
 * checks each setting against these before it opens a store or touches a state file, so a typo such
 * as {@code ttl 100000000h} changes nothing and no sum of a clock reading and a setting can overflow
 * into a stored value.
 *
 * <table>
 * <caption>Limits</caption>
 * <tr><th>setting</th><th>least</th><th>most</th></tr>
 * <tr><td>ttl</td><td>3 ms</td><td>24 h</td></tr>
 * <tr><td>tolerance</td><td>0</td><td>1 h</td></tr>
 * <tr><td>maxWait</td><td>0</td><td>24 h</td></tr>
 * <tr><td>maxLead</td><td>0</td><td>1 min</td></tr>
 * <tr><td>acquireTimeout</td><td>0</td><td>366 days</td></tr>
 * <tr><td>ahead (static slot)</td><td>2 ms</td><td>24 h</td></tr>
 * <tr><td>notBefore (static slot)</td><td>1970-01-01T00:00:00Z</td><td>1 day past the clock, or
 *     {@value #NOT_BEFORE_MAX_TEXT} with {@code allowFutureNotBefore(true)}</td></tr>
 * <tr><td>bits</td><td>0</td><td>16</td></tr>
 * </table>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Limits.check("ttl", Duration.ofHours(100_000_000), Limits.TTL_MIN, Limits.TTL_MAX);
 * // IllegalArgumentException: ttl of 100000000 h is longer than the most, 24 h
 * }</pre>
 */
public final class Limits {

    /** The shortest ttl: a renewal every third of it must still be possible. */
    public static final Duration TTL_MIN = Duration.ofMillis(3);
    /** The longest ttl: a crashed holder blocks its slot at most this long. */
    public static final Duration TTL_MAX = Duration.ofHours(24);
    /** The largest tolerance: how far clocks may disagree. */
    public static final Duration TOLERANCE_MAX = Duration.ofHours(1);
    /** The longest wait of one {@code nextId()}. */
    public static final Duration MAX_WAIT_MAX = Duration.ofHours(24);
    /**
     * The farthest a unit may start past the clock under {@code maxLead}: ids further ahead would carry
     * misleading timestamps, and a release hands the next holder a floor up to this far in the future.
     */
    public static final Duration MAX_LEAD_MAX = Duration.ofMinutes(1);
    /** The longest start-up wait for a free slot. */
    public static final Duration ACQUIRE_TIMEOUT_MAX = Duration.ofDays(366);
    /** The shortest extent a static slot's ceiling is written ahead of the clock. */
    public static final Duration AHEAD_MIN = Duration.ofMillis(2);
    /** The longest extent a static slot's ceiling is written ahead of the clock. */
    public static final Duration AHEAD_MAX = Duration.ofHours(24);
    /** How far past the clock a not-before may lie without {@code allowFutureNotBefore(true)}. */
    public static final Duration NOT_BEFORE_AHEAD_MAX = Duration.ofDays(1);
    /** The text of {@link #NOT_BEFORE_MAX}. */
    public static final String NOT_BEFORE_MAX_TEXT = "2200-01-01T00:00:00Z";
    /** The latest not-before at all: past every preset layout's last id. */
    public static final Instant NOT_BEFORE_MAX = Instant.parse(NOT_BEFORE_MAX_TEXT);
    /** How close to a layout's end ({@link IdLayout#runsOutAt()}) a runtime starts warning of it, once a layout. */
    public static final Duration RUNWAY_WARNING = Duration.ofDays(365);
    /** The most slot bits a namespace may have. */
    public static final int BITS_MAX = 16;

    private Limits() {
    }

    /**
     * Checks a duration against its range.
     *
     * @param name the setting, for the message
     * @param value the value
     * @param least the shortest allowed
     * @param most the longest allowed
     * @return the value in whole milliseconds
     * @throws IllegalArgumentException naming the setting, the value and the bound it breaks
     */
    public static long check(String name, Duration value, Duration least, Duration most) {
        if (value == null) {
            throw new IllegalArgumentException(name + " is not set");
        }
        if (value.compareTo(least) < 0) {
            throw new IllegalArgumentException(name + " of " + text(value) + " is "
                    + (value.isNegative() ? "negative" : "shorter than the least, " + text(least)));
        }
        if (value.compareTo(most) > 0) {
            throw new IllegalArgumentException(name + " of " + text(value) + " is longer than the most, " + text(most));
        }
        return value.toMillis();
    }

    /**
     * Writes a long duration roughly: whole days from two days on, whole hours from one hour, else as
     * {@link #text(Duration)} in whole seconds.
     *
     * @param value a duration, zero or more
     * @return its text, such as {@code 180 days}
     */
    static String roughly(Duration value) {
        if (value.toDays() >= 2) {
            return value.toDays() + " days";
        }
        if (value.toHours() >= 1) {
            return value.toHours() + " h";
        }
        return text(Duration.ofSeconds(value.getSeconds()));
    }

    /**
     * Writes a duration the way people read it: {@code 500 ms}, {@code 30 s}, {@code 24 h}, {@code 366 days}.
     *
     * @param value a duration
     * @return its text
     */
    static String text(Duration value) {
        if (value.isNegative()) {
            return "-" + text(value.negated());
        }
        if (value.getNano() % 1_000_000 != 0 || value.isZero()) {
            return value.isZero() ? "0 ms" : value.toString();
        }
        if (value.getSeconds() > 1_000_000_000_000L) {
            return value.getSeconds() + " s";
        }
        long millis = value.getSeconds() * 1000 + value.getNano() / 1_000_000;
        if (millis % 86_400_000L == 0 && millis > 86_400_000L) {
            return millis / 86_400_000L + " days";
        }
        if (millis % 3_600_000L == 0) {
            return millis / 3_600_000L + " h";
        }
        if (millis % 60_000L == 0) {
            return millis / 60_000L + " min";
        }
        if (millis % 1_000L == 0) {
            return millis / 1_000L + " s";
        }
        return millis + " ms";
    }
}
