package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IdStringsTest {

    @Test
    void bothFormsRoundTripAtTheEdges() {
        for (long id : new long[] {0, 1, 61, 62, 31, 32, Long.MAX_VALUE, Long.MAX_VALUE - 1}) {
            assertEquals(id, IdStrings.parseRadix62(IdStrings.toRadix62(id)));
            assertEquals(id, IdStrings.parseCrockford32(IdStrings.toCrockford32(id)));
        }
        assertEquals("00000000000", IdStrings.toRadix62(0));
        assertEquals("AzL8n0Y58m7", IdStrings.toRadix62(Long.MAX_VALUE));
        assertEquals("7ZZZZZZZZZZZZ", IdStrings.toCrockford32(Long.MAX_VALUE));
    }

    @Test
    void stringOrderIsIdOrder() {
        SplittableRandom random = new SplittableRandom(42);
        long[] ids = random.longs(5_000, 0, Long.MAX_VALUE).toArray();
        String[] radix = Arrays.stream(ids).mapToObj(IdStrings::toRadix62).toArray(String[]::new);
        String[] crockford = Arrays.stream(ids).mapToObj(IdStrings::toCrockford32).toArray(String[]::new);
        Arrays.sort(ids);
        Arrays.sort(radix);
        Arrays.sort(crockford);
        for (int i = 0; i < ids.length; i++) {
            assertEquals(ids[i], IdStrings.parseRadix62(radix[i]));
            assertEquals(ids[i], IdStrings.parseCrockford32(crockford[i]));
        }
    }

    @Test
    void crockfordAcceptsLowerCase() {
        long id = 1_234_567_890_123L;
        assertEquals(id, IdStrings.parseCrockford32(IdStrings.toCrockford32(id).toLowerCase()));
    }

    @Test
    void theUnpaddedFormDropsLeadingZerosAndReadsAnyWidth() {
        assertEquals("0", IdStrings.toRadix62Unpadded(0));
        assertEquals("z", IdStrings.toRadix62Unpadded(61));
        assertEquals("10", IdStrings.toRadix62Unpadded(62));
        assertEquals("AzL8n0Y58m7", IdStrings.toRadix62Unpadded(Long.MAX_VALUE));
        assertEquals(0, IdStrings.parseRadix62Unpadded(""), "CosId writes id 0 as the empty string");
        assertEquals(0, IdStrings.parseRadix62Unpadded("0"));
        assertEquals(62, IdStrings.parseRadix62Unpadded("00000000010"), "the padded form too");
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long id = random.nextLong(Long.MAX_VALUE);
            String text = IdStrings.toRadix62Unpadded(id);
            assertEquals(IdStrings.toRadix62(id).replaceFirst("^0+(?=.)", ""), text);
            assertEquals(id, IdStrings.parseRadix62Unpadded(text));
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62Unpadded("000000000000"))
                .getMessage().contains("has 12 characters; expected at most 11"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62Unpadded("zzzzzzzzzzz"))
                .getMessage().contains("exceeds the largest id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62Unpadded("a-b"))
                .getMessage().contains("'-' at position 1"));
    }

    @Test
    void badTextIsRejectedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62("abc"))
                .getMessage().contains("has 3 characters; expected 11 (CosId's unpadded form is read by "
                        + "parseRadix62Unpadded)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62("0000000000-"))
                .getMessage().contains("'-' at position 10"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseRadix62("zzzzzzzzzzz"))
                .getMessage().contains("exceeds the largest id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseCrockford32("8000000000000"))
                .getMessage().contains("exceeds the largest id"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> IdStrings.parseCrockford32("000000000000U"))
                .getMessage().contains("not a Crockford base-32 digit"));
        assertThrows(IllegalArgumentException.class, () -> IdStrings.toRadix62(-1));
    }
}
