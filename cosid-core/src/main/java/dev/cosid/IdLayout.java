package dev.cosid;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * How a 63-bit Snowflake id is cut into time, slot and sequence.
 *
 * <p>An id is {@code (units << (slotBits + sequenceBits)) | (slot << sequenceBits) | sequence}, where
 * {@code units = (millis - epochMillis) / unitMillis}. The sign bit is always zero. A unit {@code u}
 * covers the milliseconds {@code [start(u), end(u)]}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * IdLayout layout = IdLayout.MILLISECOND;
 * IdParts parts = layout.parse(id);
 * String text = layout.friendly(id); // 20261202125322123-3-17
 * }</pre>
 *
 * @param epochMillis the instant of unit zero, in milliseconds since the Unix epoch
 * @param unitMillis the length of one timestamp unit, at least 1 ms
 * @param timestampBits the bits of the timestamp
 * @param slotBits the bits of the slot
 * @param sequenceBits the bits of the sequence within one unit
 */
public record IdLayout(long epochMillis, long unitMillis, int timestampBits, int slotBits, int sequenceBits) {

    /** The CosId epoch, 2019-12-24T16:00:00Z, shared by every preset. */
    public static final long COSID_EPOCH_MILLIS = 1_577_203_200_000L;

    /** Milliseconds, 41 + 10 + 12 bits: the default, compatible with CosId's millisecond ids. */
    public static final IdLayout MILLISECOND = new IdLayout(COSID_EPOCH_MILLIS, 1, 41, 10, 12);

    /** Seconds, 31 + 10 + 22 bits. */
    public static final IdLayout SECOND = new IdLayout(COSID_EPOCH_MILLIS, 1000, 31, 10, 22);

    /** Milliseconds within JavaScript's safe integers (2^53), 41 + 3 + 9 bits. */
    public static final IdLayout SAFE_JS_MILLISECOND = new IdLayout(COSID_EPOCH_MILLIS, 1, 41, 3, 9);

    /** Seconds within JavaScript's safe integers (2^53), 31 + 3 + 19 bits. */
    public static final IdLayout SAFE_JS_SECOND = new IdLayout(COSID_EPOCH_MILLIS, 1000, 31, 3, 19);

    private static final DateTimeFormatter FRIENDLY_TIME =
            DateTimeFormatter.ofPattern("yyyyMMddHHmmssSSS", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** Checks every field and their sum. */
    public IdLayout {
        if (unitMillis < 1) {
            throw new IllegalArgumentException("unitMillis " + unitMillis + " is less than 1");
        }
        if (epochMillis < 0) {
            throw new IllegalArgumentException("epochMillis " + epochMillis + " is negative");
        }
        if (timestampBits < 1 || slotBits < 0 || sequenceBits < 0) {
            throw new IllegalArgumentException("bit counts must be timestamp >= 1, slot >= 0, sequence >= 0; got "
                    + timestampBits + ", " + slotBits + ", " + sequenceBits);
        }
        if (timestampBits + slotBits + sequenceBits > 63) {
            throw new IllegalArgumentException("timestamp " + timestampBits + " + slot " + slotBits + " + sequence "
                    + sequenceBits + " bits = " + (timestampBits + slotBits + sequenceBits) + " exceed 63");
        }
    }

    /**
     * Returns the preset with the given name, ignoring case and dashes.
     *
     * @param name {@code MILLISECOND}, {@code SECOND}, {@code SAFE_JS_MILLISECOND} or {@code SAFE_JS_SECOND}
     * @return the preset
     */
    public static IdLayout preset(String name) {
        String key = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        switch (key) {
            case "MILLISECOND": return MILLISECOND;
            case "SECOND": return SECOND;
            case "SAFE_JS_MILLISECOND": return SAFE_JS_MILLISECOND;
            case "SAFE_JS_SECOND": return SAFE_JS_SECOND;
            default: throw new IllegalArgumentException("unknown layout '" + name
                    + "'; known: MILLISECOND, SECOND, SAFE_JS_MILLISECOND, SAFE_JS_SECOND");
        }
    }

    /** Returns the total number of bits an id uses. */
    public int totalBits() {
        return timestampBits + slotBits + sequenceBits;
    }

    /** Returns the largest id this layout can produce. */
    public long maxId() {
        return totalBits() == 63 ? Long.MAX_VALUE : (1L << totalBits()) - 1;
    }

    /** Returns the largest sequence within one unit. */
    public long maxSequence() {
        return (1L << sequenceBits) - 1;
    }

    /** Returns the number of slots the layout can address. */
    public long slotCount() {
        return 1L << slotBits;
    }

    /**
     * Returns the unit that contains a millisecond; negative before the epoch.
     *
     * @param millis milliseconds since the Unix epoch
     * @return the unit
     */
    public long unitOf(long millis) {
        return Math.floorDiv(millis - epochMillis, unitMillis);
    }

    /**
     * Returns the first millisecond of a unit.
     *
     * @param unit the unit
     * @return {@code epochMillis + unit * unitMillis}
     */
    public long startOf(long unit) {
        return epochMillis + unit * unitMillis;
    }

    /**
     * Returns the last millisecond of a unit.
     *
     * @param unit the unit
     * @return {@code startOf(unit) + unitMillis - 1}
     */
    public long endOf(long unit) {
        return startOf(unit) + unitMillis - 1;
    }

    /**
     * Checks that a lease's {@code bits} fit this layout's slot bits.
     *
     * @param bits the number of slot bits of the lease namespace
     * @throws IllegalArgumentException naming both numbers when they do not
     */
    public void requireSlotBits(int bits) {
        if (bits > slotBits) {
            throw new IllegalArgumentException("bits " + bits + " exceed the layout's slot bits " + slotBits);
        }
    }

    /**
     * Builds an id from its parts.
     *
     * @param unit the timestamp unit
     * @param slot the slot
     * @param sequence the sequence
     * @return the id
     * @throws IllegalArgumentException when a part does not fit its bits
     */
    public long compose(long unit, int slot, long sequence) {
        if (unit < 0 || (timestampBits < 63 && unit >= (1L << timestampBits))) {
            throw new IllegalArgumentException("unit " + unit + " does not fit " + timestampBits + " timestamp bits");
        }
        if (slot < 0 || slot >= slotCount()) {
            throw new IllegalArgumentException("slot " + slot + " does not fit " + slotBits + " slot bits");
        }
        if (sequence < 0 || sequence > maxSequence()) {
            throw new IllegalArgumentException("sequence " + sequence + " does not fit " + sequenceBits
                    + " sequence bits");
        }
        return (unit << (slotBits + sequenceBits)) | ((long) slot << sequenceBits) | sequence;
    }

    /**
     * Splits an id into its time, slot and sequence.
     *
     * @param id an id of this layout
     * @return its parts; the time is the first millisecond of its unit
     * @throws IllegalArgumentException when the id is negative or wider than the layout
     */
    public IdParts parse(long id) {
        requireFits(id);
        long unit = id >>> (slotBits + sequenceBits);
        int slot = (int) ((id >>> sequenceBits) & ((1L << slotBits) - 1));
        long sequence = id & maxSequence();
        return new IdParts(startOf(unit), slot, sequence);
    }

    /**
     * Returns the friendly form {@code yyyyMMddHHmmssSSS-slot-sequence} (UTC) of an id.
     *
     * @param id an id of this layout
     * @return its friendly form
     */
    public String friendly(long id) {
        IdParts parts = parse(id);
        return FRIENDLY_TIME.format(Instant.ofEpochMilli(parts.timestampMillis())) + "-" + parts.slot() + "-"
                + parts.sequence();
    }

    /**
     * Parses the friendly form back into the id.
     *
     * @param text a friendly form made by {@link #friendly(long)}
     * @return the id
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public long parseFriendly(String text) {
        String[] fields = text.split("-", -1);
        if (fields.length != 3 || fields[0].length() != 17) {
            throw new IllegalArgumentException("'" + text + "' is not of the form yyyyMMddHHmmssSSS-slot-sequence");
        }
        long millis;
        try {
            LocalDateTime time = LocalDateTime.parse(fields[0], FRIENDLY_TIME);
            millis = time.toInstant(ZoneOffset.UTC).toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + fields[0] + "' in '" + text + "' is not a UTC time yyyyMMddHHmmssSSS");
        }
        long slot = parseNumber(fields[1], "slot", text);
        long sequence = parseNumber(fields[2], "sequence", text);
        if (Math.floorMod(millis - epochMillis, unitMillis) != 0) {
            throw new IllegalArgumentException("time " + fields[0] + " in '" + text + "' is not the start of a "
                    + unitMillis + " ms unit");
        }
        if (slot >= slotCount()) {
            throw new IllegalArgumentException("slot " + slot + " in '" + text + "' does not fit " + slotBits + " slot bits");
        }
        return compose(unitOf(millis), (int) slot, sequence);
    }

    private static long parseNumber(String field, String name, String text) {
        if (field.isEmpty() || field.length() > 18 || !field.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(name + " '" + field + "' in '" + text + "' is not a number");
        }
        return Long.parseLong(field);
    }

    private void requireFits(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("id " + id + " is negative; ids are non-negative 63-bit numbers");
        }
        if (id > maxId()) {
            throw new IllegalArgumentException("id " + id + " does not fit the layout's " + totalBits() + " bits");
        }
    }
}
