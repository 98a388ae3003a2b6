package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IdLayoutTest {

    @Test
    void presetsMatchCosIdFormats() {
        assertEquals(new IdLayout(1_577_203_200_000L, 1, 41, 10, 12), IdLayout.MILLISECOND);
        assertEquals(new IdLayout(1_577_203_200_000L, 1000, 31, 10, 22), IdLayout.SECOND);
        assertEquals(new IdLayout(1_577_203_200_000L, 1, 41, 3, 9), IdLayout.SAFE_JS_MILLISECOND);
        assertEquals(new IdLayout(1_577_203_200_000L, 1000, 31, 3, 19), IdLayout.SAFE_JS_SECOND);
        assertTrue(IdLayout.SAFE_JS_MILLISECOND.maxId() < (1L << 53));
        assertTrue(IdLayout.SAFE_JS_SECOND.maxId() < (1L << 53));
        assertEquals(IdLayout.SAFE_JS_SECOND, IdLayout.preset("safe-js-second"));
    }

    @Test
    void theLegacyEpochLayoutCountsMillisecondsFromCosIdsSecondEpochReadAsMilliseconds() {
        IdLayout legacy = IdLayout.SAFE_JS_MILLISECOND_LEGACY_EPOCH;
        assertEquals(new IdLayout(1_577_203_200L, 1, 41, 3, 9), legacy);
        assertEquals(legacy, IdLayout.preset("safe-js-millisecond-legacy-epoch"));
        assertEquals("SAFE_JS_MILLISECOND_LEGACY_EPOCH", legacy.describe());
        assertEquals(Instant.parse("1970-01-19T06:06:43.200Z").toEpochMilli(), legacy.epochMillis());
        assertEquals(Instant.parse("2039-09-25T21:54:18.751Z").toEpochMilli(), legacy.endMillis());
        // CosId 2.x's id 7350938026543617, issued on 2026-12-02, is 2076 in the fixed layout
        IdParts parts = legacy.parse(7_350_938_026_543_617L);
        assertTrue(Instant.ofEpochMilli(parts.timestampMillis()).toString().startsWith("2026-12-02"), parts.toString());
        assertTrue(Instant.ofEpochMilli(IdLayout.SAFE_JS_MILLISECOND.parse(7_350_938_026_543_617L).timestampMillis())
                .toString().startsWith("2076-11-06"));
        assertTrue(legacy.maxId() < (1L << 53));
    }

    @Test
    void everyLayoutEndsAtTheLastMillisecondOfItsLargestUnit() {
        assertEquals(Instant.parse("2089-08-30T07:47:35.551Z").toEpochMilli(), IdLayout.MILLISECOND.endMillis());
        assertEquals(IdLayout.MILLISECOND.endOf((1L << 41) - 1), IdLayout.MILLISECOND.endMillis());
        assertEquals(IdLayout.SECOND.endOf((1L << 31) - 1), IdLayout.SECOND.endMillis());
        assertEquals(Long.MAX_VALUE, new IdLayout(0, 1000, 63, 0, 0).endMillis(), "saturates instead of wrapping");
        assertEquals("IdLayout(epoch 0 ms, unit 1000 ms, 63 + 0 + 0 bits)", new IdLayout(0, 1000, 63, 0, 0).describe());
    }

    @Test
    void rejectsLayoutsThatDoNotFitSixtyThreeBitsNamingTheValues() {
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                () -> new IdLayout(0, 1, 41, 10, 13));
        assertEquals("timestamp 41 + slot 10 + sequence 13 bits = 64 exceed 63", wide.getMessage());
        IllegalArgumentException unit = assertThrows(IllegalArgumentException.class,
                () -> new IdLayout(0, 0, 41, 10, 12));
        assertEquals("unitMillis 0 is less than 1", unit.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new IdLayout(0, 1, 41, -1, 12));
        assertThrows(IllegalArgumentException.class, () -> IdLayout.preset("nanosecond"));
    }

    @Test
    void composeAndParseAreInverse() {
        IdLayout layout = IdLayout.MILLISECOND;
        long id = layout.compose(123_456_789L, 1023, 4095);
        IdParts parts = layout.parse(id);
        assertEquals(new IdParts(layout.startOf(123_456_789L), 1023, 4095), parts);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long any = random.nextLong() & layout.maxId();
            IdParts p = layout.parse(any);
            assertEquals(any, layout.compose(layout.unitOf(p.timestampMillis()), p.slot(), p.sequence()));
        }
    }

    @Test
    void parseRejectsIdsOutsideTheLayout() {
        assertEquals("id -1 is negative; ids are non-negative 63-bit numbers",
                assertThrows(IllegalArgumentException.class, () -> IdLayout.MILLISECOND.parse(-1)).getMessage());
        assertEquals("id 9007199254740992 does not fit the layout's 53 bits",
                assertThrows(IllegalArgumentException.class,
                        () -> IdLayout.SAFE_JS_MILLISECOND.parse(1L << 53)).getMessage());
    }

    @Test
    void secondUnitsCoverWholeSeconds() {
        IdLayout layout = IdLayout.SECOND;
        long millis = IdLayout.COSID_EPOCH_MILLIS + 5_250;
        assertEquals(5, layout.unitOf(millis));
        assertEquals(IdLayout.COSID_EPOCH_MILLIS + 5_000, layout.startOf(5));
        assertEquals(IdLayout.COSID_EPOCH_MILLIS + 5_999, layout.endOf(5));
        assertEquals(-1, layout.unitOf(IdLayout.COSID_EPOCH_MILLIS - 1));
    }

    @Test
    void friendlyFormRoundTrips() {
        IdLayout layout = IdLayout.MILLISECOND;
        long millis = 1_764_680_002_123L; // 2025-12-02T12:53:22.123Z
        long id = layout.compose(layout.unitOf(millis), 3, 17);
        assertEquals("20251202125322123-3-17", layout.friendly(id));
        assertEquals(id, layout.parseFriendly("20251202125322123-3-17"));
        long seconds = IdLayout.SECOND.compose(IdLayout.SECOND.unitOf(millis), 1, 2);
        assertEquals("20251202125322-1-2", IdLayout.SECOND.friendly(seconds), "second layouts write no milliseconds");
        assertEquals(seconds, IdLayout.SECOND.parseFriendly("20251202125322-1-2"));
        assertEquals(seconds, IdLayout.SECOND.parseFriendly("20251202125322000-1-2"), "the earlier 17-digit form");
        assertEquals(seconds, IdLayout.SECOND.parseFriendly("20251202125322-0001-0000002"), "CosId's padded form");
        assertEquals(id, layout.parseFriendly("20251202125322123-0003-0017"));
    }

    @Test
    void friendlyFormInAZoneWritesAndReadsLocalTime() {
        IdLayout layout = IdLayout.MILLISECOND;
        long id = layout.compose(layout.unitOf(1_764_680_002_123L), 3, 17); // 2025-12-02T12:53:22.123Z
        ZoneId shanghai = ZoneId.of("Asia/Shanghai");
        assertEquals("20251202205322123-3-17", layout.friendly(id, shanghai));
        assertEquals(id, layout.parseFriendly("20251202205322123-3-17", shanghai));
        assertEquals(layout.parseFriendly("20251202125322123-3-17"), layout.parseFriendly("20251202125322123-3-17",
                ZoneId.of("UTC")));
        // a local time that occurs twice is read as the earlier one: 01:30 EDT, not 01:30 EST
        ZoneId newYork = ZoneId.of("America/New_York");
        long early = layout.parseFriendly("20251102013000000-0-0", newYork);
        assertEquals(Instant.parse("2025-11-02T05:30:00Z").toEpochMilli(), layout.parse(early).timestampMillis());
    }

    @Test
    void friendlyFormRejectsBadTextNamingThePart() {
        IdLayout layout = IdLayout.MILLISECOND;
        assertThrows(IllegalArgumentException.class, () -> layout.parseFriendly("2025-1-2"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20251302125322123-3-17")).getMessage().contains("is not a time yyyyMMddHHmmssSSS"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20251202125322-3-17")).getMessage().contains("not of the form "
                        + "yyyyMMddHHmmssSSS-slot-sequence"), "a millisecond layout needs the milliseconds");
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20191224155959999-3-17")).getMessage().contains("lies outside the layout"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20251202125322123-x-17")).getMessage().contains("slot 'x'"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20251202125322123-1024-17")).getMessage().contains("slot 1024"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> IdLayout.SECOND.parseFriendly("20251202125322123-1-1")).getMessage().contains("start of a 1000 ms unit"));
    }

    @Test
    void leaseBitsMustFitTheSlotBits() {
        IdLayout.MILLISECOND.requireSlotBits(10);
        assertEquals("bits 10 exceed the layout's slot bits 3", assertThrows(IllegalArgumentException.class,
                () -> IdLayout.SAFE_JS_MILLISECOND.requireSlotBits(10)).getMessage());
    }
}
