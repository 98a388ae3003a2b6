package dev.cosid.time;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads durations as people write them in configuration and on the command line.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Duration ttl = Durations.parse("30s");   // also 500ms, 2m, 1h, PT30S
 * }</pre>
 */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    private Durations() {
    }

    /**
     * Reads {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT10S}).
     *
     * @param text the duration
     * @return the duration
     * @throws IllegalArgumentException naming the text when it is none of these
     */
    public static Duration parse(String text) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        Matcher simple = SIMPLE.matcher(trimmed);
        if (simple.matches()) {
            long amount = Long.parseLong(simple.group(1));
            switch (simple.group(2)) {
                case "ms": return Duration.ofMillis(amount);
                case "s": return Duration.ofSeconds(amount);
                case "m": return Duration.ofMinutes(amount);
                default: return Duration.ofHours(amount);
            }
        }
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use for example 500ms, 30s, 2m, 1h "
                    + "or PT30S");
        }
    }

    /**
     * Writes milliseconds briefly: {@code 850ms} below a second, else {@code 12.3s}.
     *
     * @param millis milliseconds
     * @return the text
     */
    public static String format(long millis) {
        if (Math.abs(millis) < 1_000) {
            return millis + "ms";
        }
        return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}
