package dev.cosid;

import dev.cosid.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a 63-bit Snowflake id is cut into time, slot and sequence.
 *
 * <p>An id is {@code (units << (slotBits + sequenceBits)) | (slot << sequenceBits) | sequence}, where
 * {@code units = (millis - epochMillis) / unitMillis}. The sign bit is always zero. A unit {@code u}
 * covers the milliseconds {@code [start(u), end(u)]}.
 *
 * <p>The presets are CosId's layouts, so ids already in a table keep their order after a migration.
 * {@link #SAFE_JS_MILLISECOND_LEGACY_EPOCH} continues the ids of CosId 3.2.0 and earlier, whose
 * {@code SafeJavaScriptSnowflakeId.ofMillisecond} counted from a mistaken epoch.
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

    /** The CosId epoch, 2019-12-24T16:00:00Z, shared by every preset but one. */
    public static final long COSID_EPOCH_MILLIS = 1_577_203_200_000L;

    /**
     * The epoch of CosId's {@code SafeJavaScriptSnowflakeId.ofMillisecond} up to CosId 3.2.0: the CosId
     * epoch in seconds (1577203200) read as milliseconds, which is 1970-01-19T06:06:43.200Z.
     */
    public static final long COSID_LEGACY_SAFE_JS_EPOCH_MILLIS = 1_577_203_200L;

    /** Milliseconds, 41 + 10 + 12 bits: the default, compatible with CosId's millisecond ids. */
    public static final IdLayout MILLISECOND = new IdLayout(COSID_EPOCH_MILLIS, 1, 41, 10, 12);

    /** Seconds, 31 + 10 + 22 bits. */
    public static final IdLayout SECOND = new IdLayout(COSID_EPOCH_MILLIS, 1000, 31, 10, 22);

    /** Milliseconds within JavaScript's safe integers (2^53), 41 + 3 + 9 bits. */
    public static final IdLayout SAFE_JS_MILLISECOND = new IdLayout(COSID_EPOCH_MILLIS, 1, 41, 3, 9);

    /** Seconds within JavaScript's safe integers (2^53), 31 + 3 + 19 bits. */
    public static final IdLayout SAFE_JS_SECOND = new IdLayout(COSID_EPOCH_MILLIS, 1000, 31, 3, 19);

    /**
     * The ids of CosId 3.2.0 and earlier's {@code SafeJavaScriptSnowflakeId.ofMillisecond(machineId)}:
     * milliseconds, 41 + 3 + 9 bits, from the epoch {@link #COSID_LEGACY_SAFE_JS_EPOCH_MILLIS}
     * (1970-01-19T06:06:43.200Z). Those versions passed the CosId epoch in seconds where milliseconds
     * were due, so their ids are about eight times larger than {@link #SAFE_JS_MILLISECOND}'s at the
     * same instant; CosId 3.2.1 fixed the epoch. A service that issued such ids keeps this layout, so
     * its new ids sort after the old ones. Its last instant is 2039-09-25T21:54:18.751Z.
     */
    public static final IdLayout SAFE_JS_MILLISECOND_LEGACY_EPOCH =
            new IdLayout(COSID_LEGACY_SAFE_JS_EPOCH_MILLIS, 1, 41, 3, 9);

    /** The names {@link #preset(String)} knows, in order. */
    public static final List<String> PRESET_NAMES = List.of("MILLISECOND", "SECOND", "SAFE_JS_MILLISECOND",
            "SAFE_JS_SECOND", "SAFE_JS_MILLISECOND_LEGACY_EPOCH");

    private static final DateTimeFormatter MILLISECOND_TIME =
            DateTimeFormatter.ofPattern("uuuuMMddHHmmssSSS", Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);
    private static final DateTimeFormatter SECOND_TIME =
            DateTimeFormatter.ofPattern("uuuuMMddHHmmss", Locale.ROOT).withResolverStyle(ResolverStyle.STRICT);

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
     * @param name one of {@link #PRESET_NAMES}: {@code MILLISECOND}, {@code SECOND},
     *     {@code SAFE_JS_MILLISECOND}, {@code SAFE_JS_SECOND} or {@code SAFE_JS_MILLISECOND_LEGACY_EPOCH}
     * @return the preset
     */
    public static IdLayout preset(String name) {
        String key = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        switch (key) {
            case "MILLISECOND": return MILLISECOND;
            case "SECOND": return SECOND;
            case "SAFE_JS_MILLISECOND": return SAFE_JS_MILLISECOND;
            case "SAFE_JS_SECOND": return SAFE_JS_SECOND;
            case "SAFE_JS_MILLISECOND_LEGACY_EPOCH": return SAFE_JS_MILLISECOND_LEGACY_EPOCH;
            default: throw new IllegalArgumentException("unknown layout '" + name + "'; known: "
                    + String.join(", ", PRESET_NAMES));
        }
    }

    /**
     * Returns the name of this layout if it is a preset.
     *
     * @return the preset's name, or a description of the fields
     */
    public String describe() {
        for (String name : PRESET_NAMES) {
            if (preset(name).equals(this)) {
                return name;
            }
        }
        return "IdLayout(epoch " + epochMillis + " ms, unit " + unitMillis + " ms, " + timestampBits + " + "
                + slotBits + " + " + sequenceBits + " bits)";
    }

    /**
     * Returns the last millisecond an id of this layout can carry: the end of its largest unit.
     *
     * @return milliseconds since the Unix epoch, at most {@link Long#MAX_VALUE}
     */
    public long endMillis() {
        long lastUnit = timestampBits >= 63 ? Long.MAX_VALUE : (1L << timestampBits) - 1;
        try {
            return Math.addExact(Math.addExact(epochMillis, Math.multiplyExact(lastUnit, unitMillis)), unitMillis - 1);
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Returns the instant this layout's timestamp bits run out: the first millisecond no id of it can
     * carry. A generator refuses to issue from then on; plan a new layout (or name) well before it.
     *
     * @return {@code endMillis() + 1}, or the largest instant of a long when the bits outlast it
     */
    public Instant runsOutAt() {
        long end = endMillis();
        return Instant.ofEpochMilli(end == Long.MAX_VALUE ? end : end + 1);
    }

    /**
     * Returns the time left before this layout runs out, read from a clock.
     *
     * @param clock the clock
     * @return {@link #runsOutAt()} minus now; zero or negative once run out
     */
    public Duration runway(Clock clock) {
        return Duration.ofMillis(runwayMillis(clock.nowMillis()));
    }

    /**
     * Returns the milliseconds left before this layout runs out at a given instant.
     *
     * @param nowMillis milliseconds since the Unix epoch
     * @return {@link #runsOutAt()} minus now; zero or negative once run out; {@link Long#MAX_VALUE} when the
     *     bits outlast a long
     */
    public long runwayMillis(long nowMillis) {
        long end = endMillis();
        if (end == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        try {
            return Math.subtractExact(end + 1, nowMillis);
        } catch (ArithmeticException beyondLong) {
            return nowMillis < 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
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
     * Returns the friendly form of an id in UTC: {@code yyyyMMddHHmmssSSS-slot-sequence}, or
     * {@code yyyyMMddHHmmss-slot-sequence} when every unit starts on a whole second (the second layouts).
     * Both match CosId's {@code SnowflakeFriendlyIdConverter} in the same zone, unpadded.
     *
     * @param id an id of this layout
     * @return its friendly form
     */
    public String friendly(long id) {
        return friendly(id, ZoneOffset.UTC);
    }

    /**
     * Returns the friendly form of an id with its time in a zone, as CosId writes it with the same zone
     * (CosId's default is the JVM's zone, {@code ZoneId.systemDefault()}).
     *
     * @param id an id of this layout
     * @param zone the zone of the written time
     * @return its friendly form
     */
    public String friendly(long id, ZoneId zone) {
        IdParts parts = parse(id);
        return timeFormat().format(Instant.ofEpochMilli(parts.timestampMillis()).atZone(zone)) + "-" + parts.slot()
                + "-" + parts.sequence();
    }

    /**
     * Parses a friendly form in UTC back into the id; slot and sequence may carry leading zeros, as in
     * CosId's padded form {@code 20261202193005123-0005-0017}.
     *
     * @param text a friendly form made by {@link #friendly(long)}
     * @return the id
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public long parseFriendly(String text) {
        return parseFriendly(text, ZoneOffset.UTC);
    }

    /**
     * Parses a friendly form whose time is written in a zone. A second layout also takes the 17-digit
     * time with {@code 000} milliseconds that CosId 5.0 snapshots wrote. In a zone with daylight saving
     * time, a local time that occurs twice is read as the earlier one, as CosId reads it.
     *
     * @param text a friendly form made by {@link #friendly(long, ZoneId)} or by CosId
     * @param zone the zone of the written time
     * @return the id
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public long parseFriendly(String text, ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        String[] fields = text.split("-", -1);
        boolean wholeSeconds = wholeSeconds();
        String form = wholeSeconds ? "yyyyMMddHHmmss-slot-sequence" : "yyyyMMddHHmmssSSS-slot-sequence";
        if (fields.length != 3 || !(fields[0].length() == 17 || wholeSeconds && fields[0].length() == 14)) {
            throw new IllegalArgumentException("'" + text + "' is not of the form " + form);
        }
        long millis;
        try {
            DateTimeFormatter format = fields[0].length() == 14 ? SECOND_TIME : MILLISECOND_TIME;
            LocalDateTime time = LocalDateTime.parse(fields[0], format);
            millis = ZonedDateTime.of(time, zone).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + fields[0] + "' in '" + text + "' is not a time "
                    + (fields[0].length() == 14 ? "yyyyMMddHHmmss" : "yyyyMMddHHmmssSSS"));
        } catch (DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + fields[0] + "' in '" + text + "' is out of range: " + e.getMessage());
        }
        long slot = parseNumber(fields[1], "slot", text);
        long sequence = parseNumber(fields[2], "sequence", text);
        if (millis < epochMillis || millis > endMillis()) {
            throw new IllegalArgumentException("time " + fields[0] + " in '" + text + "' lies outside the layout, "
                    + Instant.ofEpochMilli(epochMillis) + " to " + Instant.ofEpochMilli(endMillis()));
        }
        if (Math.floorMod(millis - epochMillis, unitMillis) != 0) {
            throw new IllegalArgumentException("time " + fields[0] + " in '" + text + "' is not the start of a "
                    + unitMillis + " ms unit");
        }
        if (slot >= slotCount()) {
            throw new IllegalArgumentException("slot " + slot + " in '" + text + "' does not fit " + slotBits + " slot bits");
        }
        return compose(unitOf(millis), (int) slot, sequence);
    }

    /** Whether every unit starts and ends on a whole second, so the friendly time needs no milliseconds. */
    private boolean wholeSeconds() {
        return unitMillis % 1000 == 0 && epochMillis % 1000 == 0;
    }

    private DateTimeFormatter timeFormat() {
        return wholeSeconds() ? SECOND_TIME : MILLISECOND_TIME;
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
