package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** A layout's limits, each one the last value it takes and the first it refuses. */
class IdLayoutEdgesTest {

    /** 4 timestamp bits (units 0..15), 2 slot bits, 3 sequence bits: 9 bits, ids 0..511. */
    private static final IdLayout SMALL = new IdLayout(1_000, 1, 4, 2, 3);

    @Test
    void composeTakesTheLastUnitSlotAndSequenceAndRefusesOneMore() {
        assertEquals(511, SMALL.compose(15, 3, 7));
        assertEquals(0, SMALL.compose(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.compose(16, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.compose(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.compose(0, 4, 0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.compose(0, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.compose(0, 0, 8));
        IdLayout wide = new IdLayout(0, 1, 63, 0, 0);
        assertEquals(Long.MAX_VALUE, wide.compose(Long.MAX_VALUE, 0, 0), "63 timestamp bits take every unit");
    }

    @Test
    void parseTakesTheLargestIdAndRefusesOneMore() {
        assertEquals(new IdParts(1_015, 3, 7), SMALL.parse(511));
        assertEquals(new IdParts(1_000, 0, 0), SMALL.parse(0));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parse(512));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parse(-1));
    }

    @Test
    void aLayoutNeedsOneTimestampBitAndNoOtherBits() {
        assertEquals(1, new IdLayout(0, 1, 1, 0, 0).totalBits());
        assertThrows(IllegalArgumentException.class, () -> new IdLayout(0, 1, 0, 0, 0));
    }

    @Test
    void theLastMillisecondIsTheEndOfTheLastUnitAndTheRunwayCountsToIt() {
        IdLayout seconds = new IdLayout(1_000, 1_000, 4, 2, 3);
        assertEquals(1_000 + 16 * 1_000 - 1, seconds.endMillis());
        assertEquals(1, seconds.runwayMillis(seconds.endMillis()), "the last millisecond is still usable");
        assertEquals(16_000, seconds.runwayMillis(1_000));
        assertEquals(Long.MAX_VALUE, new IdLayout(0, 1, 63, 0, 0).runwayMillis(0), "a layout that never runs out");
        IdLayout late = new IdLayout(Long.MAX_VALUE / 2, 1, 62, 0, 0);
        assertEquals(Long.MAX_VALUE, late.runwayMillis(Long.MIN_VALUE + 10), "a runway beyond a long, capped");
    }

    @Test
    void friendlyTextTakesTheFirstAndLastMillisecondsOfTheLayoutAndNothingBeyond() {
        assertEquals(0, SMALL.parseFriendly(SMALL.friendly(0)));
        assertEquals(511, SMALL.parseFriendly(SMALL.friendly(511)));
        String first = SMALL.friendly(0);
        String beforeEpoch = "19700101000000999" + first.substring(17);
        String pastEnd = "19700101000001016" + first.substring(17);
        assertThrows(IllegalArgumentException.class, () -> SMALL.parseFriendly(beforeEpoch));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parseFriendly(pastEnd));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parseFriendly("19700101000001000-4-0"),
                "slot 4 does not fit 2 bits");
        assertEquals(SMALL.compose(0, 3, 0), SMALL.parseFriendly("19700101000001000-3-0"));
    }

    @Test
    void friendlyTextOfCoarseUnitsMustStartAUnit() {
        IdLayout twoMillis = new IdLayout(1_000, 2, 8, 2, 3);
        assertEquals(twoMillis.compose(1, 0, 0), twoMillis.parseFriendly("19700101000001002-0-0", ZoneOffset.UTC));
        IllegalArgumentException inside = assertThrows(IllegalArgumentException.class,
                () -> twoMillis.parseFriendly("19700101000001003-0-0", ZoneOffset.UTC));
        assertTrue(inside.getMessage().contains("not the start of a 2 ms unit"), inside.getMessage());
    }

    @Test
    void numbersInFriendlyTextAreAtMostEighteenDigits() {
        assertEquals(SMALL.compose(0, 0, 7), SMALL.parseFriendly("19700101000001000-0-000000000000000007"));
        assertThrows(IllegalArgumentException.class,
                () -> SMALL.parseFriendly("19700101000001000-0-0000000000000000007"));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parseFriendly("19700101000001000-0-"));
        assertThrows(IllegalArgumentException.class, () -> SMALL.parseFriendly("19700101000001000-0-x"));
    }
}
