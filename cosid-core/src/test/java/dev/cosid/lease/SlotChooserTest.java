package dev.cosid.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SlotChooserTest {

    private static final long NOW = 1_000_000;
    private final Owner me = new Owner("host:1", UUID.randomUUID());

    private static SlotRecord live(int slot, Owner owner) {
        return new SlotRecord(slot, owner, owner.key(), 1, NOW + 10_000, 0, NOW + 11_000, NOW + 11_000);
    }

    private static SlotRecord expired(int slot, Owner owner) {
        return new SlotRecord(slot, owner, owner.key(), 1, NOW - 1, 0, NOW + 999, NOW + 999);
    }

    private static SlotRecord released(int slot, String lastKey) {
        return new SlotRecord(slot, null, lastKey, 2, NOW - 5, 0, NOW + 995, NOW - 100);
    }

    private static List<String> order(SlotChoice choice) {
        return ((SlotChoice.Candidates) choice).candidates().stream()
                .map(c -> c.slot() + ":" + c.reason())
                .collect(Collectors.toList());
    }

    @Test
    void prefersHeldThenPreferredThenStickyThenLowestFree() {
        SlotTable table = new SlotTable("ns", NOW, List.of(
                live(0, Owner.of("other")),
                released(1, "someone"),
                released(2, "host:1"),
                live(5, me)));
        SlotChoice choice = SlotChooser.choose(table, me, 8, OptionalInt.of(4));
        assertEquals(List.of("5:HELD", "4:PREFERRED", "2:STICKY", "1:FREE", "3:FREE", "6:FREE", "7:FREE"),
                order(choice));
    }

    @Test
    void aPreferredSlotThatIsHeldIsSkipped() {
        SlotTable table = new SlotTable("ns", NOW, List.of(live(0, Owner.of("other"))));
        assertEquals(List.of("1:FREE"), order(SlotChooser.choose(table, me, 2, OptionalInt.of(0))));
    }

    @Test
    void expiredLeasesAreFreeButComeAfterReleasedAndNeverUsedSlots() {
        SlotTable table = new SlotTable("ns", NOW, List.of(expired(0, Owner.of("other"))));
        assertEquals(List.of("1:FREE", "0:EXPIRED"), order(SlotChooser.choose(table, me, 2, OptionalInt.empty())));
    }

    @Test
    void takeoversComeLastTheSameKeysFirstSoTheTakeoverGuardCostsOnlyWhenNothingElseIsFree() {
        SlotTable table = new SlotTable("ns", NOW, List.of(
                expired(0, Owner.of("other")),
                expired(1, new Owner("host:1", UUID.randomUUID())),
                released(2, "host:1"),
                released(3, "someone"),
                live(4, Owner.of("x"))));
        assertEquals(List.of("2:STICKY", "3:FREE", "5:FREE", "1:EXPIRED", "0:EXPIRED"),
                order(SlotChooser.choose(table, me, 6, OptionalInt.empty())));
    }

    @Test
    void aLiveLeaseOfTheSameKeyAndAnotherIncarnationIsNeverTakenAndIsReported() {
        Owner earlier = new Owner("host:1", UUID.randomUUID());
        SlotTable table = new SlotTable("ns", NOW, List.of(live(0, earlier)));
        SlotChoice choice = SlotChooser.choose(table, me, 2, OptionalInt.of(0));
        assertEquals(List.of("1:FREE"), order(choice));
        assertEquals(List.of(0), choice.duplicateOwnerSlots());
    }

    @Test
    void noFreeSlotIsExhaustedWithTheEarliestExpiry() {
        SlotRecord later = new SlotRecord(1, Owner.of("y"), "y", 1, NOW + 50_000, 0, NOW + 51_000, NOW + 51_000);
        SlotTable table = new SlotTable("ns", NOW, List.of(live(0, Owner.of("x")), later));
        SlotChoice.Exhausted exhausted = assertInstanceOf(SlotChoice.Exhausted.class,
                SlotChooser.choose(table, me, 2, OptionalInt.empty()));
        assertEquals(NOW + 10_000, exhausted.earliestExpiry());
    }
}
