package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.IdStrings;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import me.ahoo.cosid.CosId;
import me.ahoo.cosid.converter.Radix62IdConverter;
import me.ahoo.cosid.converter.RadixIdConverter;
import me.ahoo.cosid.converter.SnowflakeFriendlyIdConverter;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeIdStateParser;
import me.ahoo.cosid.snowflake.SafeJavaScriptSnowflakeId;
import me.ahoo.cosid.snowflake.SecondSnowflakeId;
import me.ahoo.cosid.snowflake.SnowflakeId;
import me.ahoo.cosid.snowflake.SnowflakeIdState;
import me.ahoo.cosid.snowflake.SnowflakeIdStateParser;
import org.junit.jupiter.api.Test;

/**
 * Our layouts and string forms against CosId 2.13.3's own generators, parsers and converters: ids decode
 * the same both ways, and radix-62 and friendly strings round-trip between the two libraries.
 */
class CosIdCompatibilityTest {

    private static final int MACHINE = 5;
    private static final List<ZoneId> ZONES = List.of(ZoneOffset.UTC, ZoneId.of("Asia/Shanghai"),
            ZoneId.of("America/New_York"));

    /** One CosId generator factory and the layout of ours that continues it. */
    private record Pair(String factory, SnowflakeId cosId, IdLayout ours) {
    }

    private static List<Pair> pairs() {
        return List.of(
                new Pair("new MillisecondSnowflakeId(machineId)", new MillisecondSnowflakeId(MACHINE), IdLayout.MILLISECOND),
                new Pair("new SecondSnowflakeId(machineId)", new SecondSnowflakeId(MACHINE), IdLayout.SECOND),
                new Pair("SafeJavaScriptSnowflakeId.ofMillisecond(machineId)", SafeJavaScriptSnowflakeId.ofMillisecond(MACHINE),
                        IdLayout.SAFE_JS_MILLISECOND_LEGACY_EPOCH),
                new Pair("SafeJavaScriptSnowflakeId.ofSecond(machineId)", SafeJavaScriptSnowflakeId.ofSecond(MACHINE),
                        IdLayout.SAFE_JS_SECOND));
    }

    private static long[] issue(SnowflakeId generator, int count) {
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = generator.generate();
        }
        return ids;
    }

    private static void assertSameParts(SnowflakeIdState theirs, IdParts ours, String what) {
        LocalDateTime ourTime = LocalDateTime.ofInstant(Instant.ofEpochMilli(ours.timestampMillis()), ZoneOffset.UTC);
        assertEquals(theirs.getTimestamp(), ourTime, what + ": time");
        assertEquals(theirs.getMachineId(), ours.slot(), what + ": machine");
        assertEquals(theirs.getSequence(), ours.sequence(), what + ": sequence");
    }

    @Test
    void idsOfEveryCosIdFactoryDecodeWithOursToCosIdsOwnTimeMachineAndSequence() {
        for (Pair pair : pairs()) {
            SnowflakeIdStateParser parser = SnowflakeIdStateParser.of(pair.cosId(), ZoneOffset.UTC, false);
            long[] ids = issue(pair.cosId(), 20_000);
            for (long id : ids) {
                assertSameParts(parser.parse(id), pair.ours().parse(id), pair.factory() + " id " + id);
            }
            long now = dev.cosid.time.Clock.system().nowMillis();
            long last = pair.ours().parse(ids[ids.length - 1]).timestampMillis();
            assertTrue(now - last < 5_000 && last <= now, pair.factory() + " decodes to now, not " + Instant.ofEpochMilli(last));
        }
    }

    @Test
    void ourIdsDecodeWithCosIdsParsers() {
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("compat").store("memory:").bits(3).start()) {
            for (Pair pair : pairs()) {
                SnowflakeIdStateParser parser = SnowflakeIdStateParser.of(pair.cosId(), ZoneOffset.UTC, false);
                dev.cosid.SnowflakeId ours = runtime.snowflake(pair.factory().replaceAll("[^A-Za-z0-9._-]", "_"), pair.ours());
                for (int i = 0; i < 20_000; i++) {
                    long id = ours.nextId();
                    assertSameParts(parser.parse(id), pair.ours().parse(id), pair.factory() + " parser, our id " + id);
                }
            }
            // the fixed safe-JS layout is CosId 3.2.1's: CosId's own parser with the right epoch reads it
            SnowflakeIdStateParser fixed = new MillisecondSnowflakeIdStateParser(CosId.COSID_EPOCH, 41, 3, 9,
                    ZoneOffset.UTC, false);
            long id = runtime.snowflake("js", IdLayout.SAFE_JS_MILLISECOND).nextId();
            assertSameParts(fixed.parse(id), IdLayout.SAFE_JS_MILLISECOND.parse(id), "3.2.1 parser");
            // and CosId 2.x's parser puts the same id in the 1970s: the reason for the legacy-epoch layout
            SnowflakeIdStateParser legacy = SnowflakeIdStateParser.of(SafeJavaScriptSnowflakeId.ofMillisecond(0));
            assertTrue(legacy.parse(id).getTimestamp().getYear() < 1980, legacy.parse(id).getTimestamp().toString());
        }
    }

    @Test
    void bothLibrariesUseTheSameRadix62Digits() {
        String digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        for (int i = 0; i < digits.length(); i++) {
            assertEquals(i, RadixIdConverter.offset(digits.charAt(i)));
            assertEquals(String.valueOf(digits.charAt(i)), IdStrings.toRadix62Unpadded(i));
        }
    }

    @Test
    void radix62StringsRoundTripBetweenTheLibraries() {
        SplittableRandom random = new SplittableRandom(62);
        long[] samples = new long[50_000];
        for (int i = 0; i < samples.length; i++) {
            samples[i] = i < 100 ? i + 1 : random.nextLong(Long.MAX_VALUE);
        }
        long[] real = issue(new MillisecondSnowflakeId(MACHINE), 1_000);
        for (long[] ids : new long[][] {samples, real}) {
            for (long id : ids) {
                String cosIdUnpadded = Radix62IdConverter.INSTANCE.asString(id);
                assertEquals(cosIdUnpadded, IdStrings.toRadix62Unpadded(id), "id " + id);
                assertEquals(id, IdStrings.parseRadix62Unpadded(cosIdUnpadded));
                assertEquals(id, Radix62IdConverter.INSTANCE.asLong(IdStrings.toRadix62Unpadded(id)));
                String cosIdPadded = Radix62IdConverter.PAD_START.asString(id);
                assertEquals(cosIdPadded, IdStrings.toRadix62(id), "id " + id);
                assertEquals(id, IdStrings.parseRadix62(cosIdPadded));
                assertEquals(id, Radix62IdConverter.PAD_START.asLong(IdStrings.toRadix62(id)));
            }
        }
        // ids issued before about 2026-04 have ten unpadded characters, later ones eleven
        long january = IdLayout.MILLISECOND.compose(IdLayout.MILLISECOND.unitOf(Instant.parse("2026-01-01T00:00:00Z")
                .toEpochMilli()), MACHINE, 1);
        assertEquals(10, Radix62IdConverter.INSTANCE.asString(january).length());
        assertEquals(january, IdStrings.parseRadix62Unpadded(Radix62IdConverter.INSTANCE.asString(january)));
        // id 0: CosId writes "" and cannot read it back; we read "" and write "0", which CosId reads
        assertEquals("", Radix62IdConverter.INSTANCE.asString(0));
        assertEquals(0, IdStrings.parseRadix62Unpadded(""));
        assertEquals(0, Radix62IdConverter.INSTANCE.asLong(IdStrings.toRadix62Unpadded(0)));
        assertThrows(RuntimeException.class, () -> Radix62IdConverter.INSTANCE.asLong(""));
    }

    @Test
    void friendlyStringsRoundTripBetweenTheLibrariesInEveryZoneAndPadding() {
        for (Pair pair : pairs()) {
            long[] ids = issue(pair.cosId(), 2_000);
            for (ZoneId zone : ZONES) {
                for (boolean padded : new boolean[] {false, true}) {
                    SnowflakeFriendlyIdConverter cosId = new SnowflakeFriendlyIdConverter(
                            SnowflakeIdStateParser.of(pair.cosId(), zone, padded));
                    for (long id : ids) {
                        String theirs = cosId.asString(id);
                        String what = pair.factory() + " in " + zone + (padded ? " padded" : "") + ": " + theirs;
                        if (!padded) {
                            assertEquals(theirs, pair.ours().friendly(id, zone), what);
                        }
                        assertEquals(id, pair.ours().parseFriendly(theirs, zone), what);
                        assertEquals(id, cosId.asLong(pair.ours().friendly(id, zone)), what);
                    }
                }
            }
        }
        // CosId's padded form, with the widths it pads to
        long id = IdLayout.MILLISECOND.compose(IdLayout.MILLISECOND.unitOf(Instant.parse("2026-12-02T19:30:05.123Z")
                .toEpochMilli()), 5, 0);
        SnowflakeFriendlyIdConverter padded = new SnowflakeFriendlyIdConverter(
                SnowflakeIdStateParser.of(new MillisecondSnowflakeId(MACHINE), ZoneOffset.UTC, true));
        assertEquals("20261202193005123-0005-0000", padded.asString(id));
        assertEquals("20261202193005123-5-0", IdLayout.MILLISECOND.friendly(id));
        long seconds = IdLayout.SECOND.compose(IdLayout.SECOND.unitOf(Instant.parse("2026-12-02T19:30:05Z")
                .toEpochMilli()), 5, 0);
        assertEquals("20261202193005-5-0", IdLayout.SECOND.friendly(seconds));
        assertEquals("20261202193005-0005-0000000", new SnowflakeFriendlyIdConverter(
                SnowflakeIdStateParser.of(new SecondSnowflakeId(MACHINE), ZoneOffset.UTC, true)).asString(seconds));
    }
}
