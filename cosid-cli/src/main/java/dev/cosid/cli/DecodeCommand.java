package dev.cosid.cli;

import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./cosid decode}: prints the time, slot and sequence of ids, and their friendly form. */
@Command(name = "decode", mixinStandardHelpOptions = true,
        description = "Prints the time (UTC), slot and sequence of each id, and its friendly form (in --zone); "
                + "every id is checked before any is printed. A last line gives when the layout's timestamp bits "
                + "run out and the whole days left.")
final class DecodeCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--layout", paramLabel = "NAME", defaultValue = "MILLISECOND",
            description = "MILLISECOND, SECOND, SAFE_JS_MILLISECOND, SAFE_JS_SECOND or SAFE_JS_MILLISECOND_LEGACY_EPOCH "
                    + "(CosId 3.2.0 and earlier's safe-JS millisecond ids) (default: ${DEFAULT-VALUE})")
    String layoutName;

    @Option(names = "--zone", paramLabel = "ZONE", defaultValue = "UTC",
            description = "the time zone of the friendly form, e.g. Asia/Shanghai; CosId writes its own in the "
                    + "JVM's zone (default: ${DEFAULT-VALUE})")
    String zoneName;

    @Parameters(arity = "1..*", paramLabel = "ID", description = "decimal ids")
    List<String> ids;

    @Override
    public Integer call() {
        IdLayout layout = IdLayout.preset(layoutName);
        ZoneId zone;
        try {
            zone = ZoneId.of(zoneName);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("--zone '" + zoneName + "' is not a time zone: " + e.getMessage());
        }
        long[] values = new long[ids.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = parse(ids.get(i), layout);
        }
        PrintWriter out = spec.commandLine().getOut();
        for (long id : values) {
            IdParts parts = layout.parse(id);
            out.println(id + " time=" + Instant.ofEpochMilli(parts.timestampMillis()) + " slot=" + parts.slot()
                    + " sequence=" + parts.sequence() + " friendly=" + layout.friendly(id, zone));
        }
        out.println(runway(layout, Clock.system().nowMillis()));
        out.flush();
        return 0;
    }

    /** The last line: when the layout's timestamp bits run out, and the whole days left (negative once past). */
    static String runway(IdLayout layout, long nowMillis) {
        long left = layout.runwayMillis(nowMillis);
        String days = left == Long.MAX_VALUE ? "unbounded" : Long.toString(Math.floorDiv(left, 86_400_000L));
        return "layout=" + layout.describe().replace(' ', '_') + " runsOutAt=" + layout.runsOutAt() + " runwayDays=" + days;
    }

    private static long parse(String text, IdLayout layout) {
        if (!text.matches("-?[0-9]+")) {
            throw new IllegalArgumentException("'" + text + "' is not a decimal id");
        }
        long id;
        try {
            id = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("id " + text + " is out of range: ids are at most " + Long.MAX_VALUE);
        }
        layout.parse(id); // rejects negative ids and ids wider than the layout
        return id;
    }
}
