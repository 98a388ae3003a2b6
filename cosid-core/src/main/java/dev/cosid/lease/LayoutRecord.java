package dev.cosid.lease;

import java.util.regex.Pattern;

/**
 * The layout an id space uses, as a store keeps it: epoch, unit and bit widths. Ids of two layouts in
 * one id space can be equal numbers (a SECOND id at one time is a MILLISECOND id at another), so the
 * first runtime that creates a generator records its layout and every later one must use the same.
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

    /** The longest id-space name. */
    public static final int MAX_NAME_LENGTH = 128;

    private static final Pattern TEXT = Pattern.compile("(\\d{1,19}),(\\d{1,19}),(\\d{1,2}),(\\d{1,2}),(\\d{1,2})");

    /** Checks the values. */
    public LayoutRecord {
        if (epochMillis < 0 || unitMillis < 1 || timestampBits < 1 || slotBits < 0 || sequenceBits < 0
                || timestampBits + slotBits + sequenceBits > 63) {
            throw new IllegalArgumentException("not a layout: epoch " + epochMillis + " ms, unit " + unitMillis
                    + " ms, " + timestampBits + "+" + slotBits + "+" + sequenceBits + " bits");
        }
    }

    /**
     * Checks the name of an id space: 1 to {@value #MAX_NAME_LENGTH} characters, none of them a control
     * character.
     *
     * @param name the generator's name
     * @return the same name
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static String requireName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("generator name is empty");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("generator name '" + name.substring(0, 20) + "...' has " + name.length()
                    + " characters; at most " + MAX_NAME_LENGTH + " are allowed");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("generator name '" + name.replaceAll("\\p{Cntrl}", "?")
                    + "' contains a control character");
        }
        return name;
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
