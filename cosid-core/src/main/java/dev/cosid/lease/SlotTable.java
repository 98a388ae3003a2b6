package dev.cosid.lease;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every slot record of a namespace, read at one store instant. Slots without a record are free.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SlotTable table = store.read("orders");
 * long now = table.storeNow();
 * }</pre>
 *
 * @param namespace the namespace
 * @param storeNow the store's clock when it read the records, ms
 * @param slots the records, in slot order
 */
public record SlotTable(String namespace, long storeNow, List<SlotRecord> slots) {

    /** Copies the records. */
    public SlotTable {
        slots = List.copyOf(slots);
    }

    /** Returns the records keyed by slot. */
    public Map<Integer, SlotRecord> bySlot() {
        return slots.stream().collect(Collectors.toMap(SlotRecord::slot, Function.identity()));
    }
}
