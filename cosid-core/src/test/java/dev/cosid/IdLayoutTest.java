package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals("20251202125322000-1-2", IdLayout.SECOND.friendly(seconds));
        assertEquals(seconds, IdLayout.SECOND.parseFriendly("20251202125322000-1-2"));
    }

    @Test
    void friendlyFormRejectsBadTextNamingThePart() {
        IdLayout layout = IdLayout.MILLISECOND;
        assertThrows(IllegalArgumentException.class, () -> layout.parseFriendly("2025-1-2"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> layout.parseFriendly("20251302125322123-3-17")).getMessage().contains("not a UTC time"));
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
