package dev.cosid.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Reads durations such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO {@code PT30S}. */
final class Durations implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})(ms|s|m|h)");

    @Override
    public Duration convert(String text) {
        return parse(text);
    }

    static Duration parse(String text) {
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
            throw new CommandLine.TypeConversionException("'" + text
                    + "' is not a duration; use for example 500ms, 30s, 2m, 1h or PT30S");
        }
    }

    static String format(long millis) {
        if (Math.abs(millis) < 1_000) {
            return millis + "ms";
        }
        return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }
}
