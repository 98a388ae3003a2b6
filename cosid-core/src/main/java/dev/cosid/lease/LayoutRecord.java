package dev.cosid.lease;

import java.util.regex.Pattern;

/**
 * The layout an id space uses, as a store keeps it: epoch, unit and bit widths. Ids of two layouts in
 * one id space can be equal numbers (a SECOND id at one time is a MILLISECOND id at another), so the
 * first runtime that creates a generator records its layout and every later one must use the same.
 * The id space's name follows {@link Names}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LayoutRecord stored = store.registerLayout("orders", "order", new LayoutRecord(1577203200000L, 1, 41, 10, 12));
 * }</pre>
 *
 * @param epochMillis the instant of unit zero, ms since the Unix epoch
 * @param unitMillis the length of one timestamp unit
 * @param timestampBits the bits of the timestamp
 * @param slotBits the bits of the slot
 * @param sequenceBits the bits of the sequence
 */
public record LayoutRecord(long epochMillis, long unitMillis, int timestampBits, int slotBits, int sequenceBits) {

    private static final Pattern TEXT = Pattern.compile("(\\d{1,19}),(\\d{1,19}),(\\d{1,2}),(\\d{1,2}),(\\d{1,2})");

    /** Checks the values. */
    public LayoutRecord {
        if (epochMillis < 0 || unitMillis < 1 || timestampBits < 1 || slotBits < 0 || sequenceBits < 0
                || timestampBits + slotBits + sequenceBits > 63) {
            throw new IllegalArgumentException("not a layout: epoch " + epochMillis + " ms, unit " + unitMillis
                    + " ms, " + timestampBits + "+" + slotBits + "+" + sequenceBits + " bits");
        }
    }

    /** Returns the text form {@code epoch,unit,timestampBits,slotBits,sequenceBits}, as Redis and ZooKeeper keep it. */
    public String text() {
        return epochMillis + "," + unitMillis + "," + timestampBits + "," + slotBits + "," + sequenceBits;
    }

    /**
     * Reads the text form.
     *
     * @param text {@code epoch,unit,timestampBits,slotBits,sequenceBits}
     * @return the record
     * @throws IllegalArgumentException when the text is not one
     */
    public static LayoutRecord parse(String text) {
        java.util.regex.Matcher m = text == null ? null : TEXT.matcher(text);
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a layout record epoch,unit,timestamp,slot,sequence");
        }
        try {
            return new LayoutRecord(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a layout record: " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "epoch " + epochMillis + " ms, unit " + unitMillis + " ms, " + timestampBits + "+" + slotBits + "+"
                + sequenceBits + " bits";
    }
}
