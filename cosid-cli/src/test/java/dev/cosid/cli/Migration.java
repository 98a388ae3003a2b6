package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SnowflakeId;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.stream.LongStream;

/**
 * The second half of every migration test: our runtime on the migrated store or state file, with its
 * clock a minute behind the clock CosId ran on, and the comparison of its ids with CosId's.
 */
final class Migration {

    /** How far behind the host that CosId ran on our runtime's clock is. */
    static final Duration BEHIND = Duration.ofMinutes(-1);
    /** The fewest ids our runtime issues in each test. */
    static final int AT_LEAST = 20_000;
    /** The most: enough to cover every millisecond of a few seconds of CosId's ids, were ours to overlap them. */
    static final int AT_MOST = 10_000_000;

    private Migration() {
    }

    /** Runs {@code ./cosid migrate} in this JVM and requires it to succeed. */
    static Cli migrate(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "migrate";
        System.arraycopy(args, 0, command, 1, args.length);
        Cli result = Cli.run(command);
        assertEquals(0, result.status(), "migrate " + String.join(" ", args) + "\nstdout: " + result.out()
                + "\nstderr: " + result.err());
        return result;
    }

    /**
     * Starts our runtime with a clock a minute behind, then issues ids of one layout until they are
     * past every id CosId issued (or {@link #AT_MOST} of them), and at least {@link #AT_LEAST}.
     *
     * <p>The clock is a {@link ManualClock} read through an offset of minus one minute: it starts a
     * minute behind the host's clock and moves only while the runtime waits, so the test does not sleep
     * through the minute. An id the runtime issues below the migrated floor would show up as one CosId
     * issued.
     */
    static long[] issueOurs(CosIdRuntime.Builder builder, IdLayout layout, long[] theirs) {
        long theirLargest = LongStream.of(theirs).max().orElseThrow();
        long theirLastMillis = layout.parse(theirLargest).timestampMillis();
        ManualClock host = new ManualClock(Clock.system().nowMillis());
        try (CosIdRuntime runtime = builder.clock(Clock.offset(host, BEHIND)).maxWait(Duration.ofMinutes(10)).start()) {
            SnowflakeId ids = runtime.snowflake("migrated", layout);
            long[] ours = new long[AT_LEAST];
            int count = 0;
            while (count < AT_MOST) {
                long id = ids.nextId();
                if (count == ours.length) {
                    ours = Arrays.copyOf(ours, count * 2);
                }
                ours[count++] = id;
                if (count >= AT_LEAST && layout.parse(id).timestampMillis() > theirLastMillis) {
                    break;
                }
            }
            return Arrays.copyOf(ours, count);
        }
    }

    /** Requires that no id of ours equals one of theirs and that every one of ours is greater. */
    static void assertAllGreaterAndNoneRepeated(long[] theirs, long[] ours, IdLayout layout) {
        long[] sorted = theirs.clone();
        Arrays.sort(sorted);
        long repeated = LongStream.of(ours).filter(id -> Arrays.binarySearch(sorted, id) >= 0).count();
        long largest = sorted[sorted.length - 1];
        long notAbove = LongStream.of(ours).filter(id -> id <= largest).count();
        long smallest = LongStream.of(ours).min().orElseThrow();
        String what = ours.length + " ids of ours from " + Instant.ofEpochMilli(layout.parse(smallest).timestampMillis())
                + " against " + theirs.length + " of CosId's up to " + Instant.ofEpochMilli(layout.parse(largest).timestampMillis());
        assertEquals(0, repeated, what + ": ids CosId had issued");
        assertEquals(0, notAbove, what + ": ids not above CosId's largest " + largest);
        assertTrue(smallest > largest, what);
        System.out.println(what + ": none repeated, all greater");
    }

    /** Joins the ids of several instances. */
    static long[] all(LegacyInstance... instances) {
        return Arrays.stream(instances).flatMapToLong(instance -> LongStream.of(instance.ids())).toArray();
    }
}
