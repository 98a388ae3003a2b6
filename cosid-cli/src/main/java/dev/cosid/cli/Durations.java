package dev.cosid.cli;

import java.time.Duration;
import picocli.CommandLine;

/** Reads durations on the command line with {@link dev.cosid.time.Durations}. */
final class Durations implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String text) {
        try {
            return dev.cosid.time.Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }

    static String format(long millis) {
        return dev.cosid.time.Durations.format(millis);
    }
}
