package dev.cosid.lease;

import java.util.UUID;

/**
 * The text form of a slot record in stores that keep one value per slot (Redis, ZooKeeper):
 * {@code key TAB incarnation TAB lastKey TAB fence TAB expiresAt TAB floor TAB ceiling TAB nextFloor},
 * with empty fields for absent values. Owner keys never contain control characters, so a tab cannot
 * appear inside a field.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * String text = SlotRecordCodec.encode(record);
 * SlotRecord back = SlotRecordCodec.decode(record.slot(), text);
 * }</pre>
 */
public final class SlotRecordCodec {

    private static final int FIELDS = 8;

    private SlotRecordCodec() {
    }

    /**
     * Encodes a record.
     *
     * @param record the record
     * @return its text
     */
    public static String encode(SlotRecord record) {
        Owner owner = record.owner();
        return String.join("\t",
                owner == null ? "" : owner.key(),
                owner == null ? "" : owner.incarnation().toString(),
                record.lastOwnerKey() == null ? "" : record.lastOwnerKey(),
                Long.toString(record.fence()),
                Long.toString(record.expiresAt()),
                Long.toString(record.floor()),
                Long.toString(record.ceiling()),
                Long.toString(record.nextFloor()));
    }

    /**
     * Decodes a record.
     *
     * @param slot the slot the text was stored under
     * @param text the stored text
     * @return the record
     * @throws LeaseStoreException naming the slot and the fault when the text is not a slot record
     */
    public static SlotRecord decode(int slot, String text) {
        String[] fields = text.split("\t", -1);
        if (fields.length != FIELDS) {
            throw corrupt(slot, text, "has " + fields.length + " fields, not " + FIELDS);
        }
        try {
            Owner owner = fields[0].isEmpty() ? null : new Owner(fields[0], UUID.fromString(fields[1]));
            return new SlotRecord(slot, owner, fields[2].isEmpty() ? null : fields[2], Long.parseLong(fields[3]),
                    Long.parseLong(fields[4]), Long.parseLong(fields[5]), Long.parseLong(fields[6]),
                    Long.parseLong(fields[7]));
        } catch (IllegalArgumentException e) {
            throw corrupt(slot, text, e.getMessage());
        }
    }

    private static LeaseStoreException corrupt(int slot, String text, String why) {
        String shown = text.length() > 200 ? text.substring(0, 200) + "..." : text;
        return new LeaseStoreException("the stored record of slot " + slot + " is corrupt (" + why + "): '"
                + shown.replace('\t', '|') + "'");
    }
}
