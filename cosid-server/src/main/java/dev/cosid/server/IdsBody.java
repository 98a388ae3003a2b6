package dev.cosid.server;

import dev.cosid.IdStrings;
import java.nio.charset.StandardCharsets;

/**
 * Writes {@code {"name":"default","ids":["282061010092396544",...]}} straight into bytes: the hot
 * path of the service, with no string per id and no escaping of text that needs none.
 */
final class IdsBody {

    /** Quotes, a comma, and the widest id (19 decimal digits, 11 radix-62 ones). */
    private static final int MAX_PER_ID = 3 + 19;

    /** "00" to "99": the digits of every pair. */
    private static final byte[] PAIRS = new byte[200];

    static {
        for (int i = 0; i < 100; i++) {
            PAIRS[2 * i] = (byte) ('0' + i / 10);
            PAIRS[2 * i + 1] = (byte) ('0' + i % 10);
        }
    }

    private final byte[] prefix;

    /** Prepares the bytes before the first id for one id space. */
    IdsBody(String name) {
        Json json = new Json(32 + name.length()).begin().field("name", name);
        this.prefix = (json + ",\"ids\":[").getBytes(StandardCharsets.UTF_8);
    }

    /** Returns the body, exactly as long as it needs to be. */
    byte[] write(long[] ids, boolean radix62) {
        byte[] out = new byte[prefix.length + ids.length * MAX_PER_ID + 2];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        int at = prefix.length;
        int previous = -1;
        for (int i = 0; i < ids.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            out[at++] = '"';
            int start = at;
            if (radix62) {
                at = radix62(out, at, ids[i]);
            } else if (previous >= 0 && ids[i] == ids[i - 1] + 1 && ids[i] % 10 != 0) {
                // the next sequence of the same unit: the previous digits with the last one moved up
                int length = start - 3 - previous;
                System.arraycopy(out, previous, out, start, length);
                at = start + length;
                out[at - 1]++;
            } else {
                at = decimal(out, at, ids[i]);
            }
            previous = start;
            out[at++] = '"';
        }
        out[at++] = ']';
        out[at++] = '}';
        return at == out.length ? out : java.util.Arrays.copyOf(out, at);
    }

    /** Writes a non-negative number's decimal digits at a position and returns the position after them. */
    static int decimal(byte[] out, int at, long value) {
        int end = at + digits(value);
        int i = end;
        long rest = value;
        // two digits a step, in long arithmetic while the number is wide, then in int arithmetic
        while (rest > Integer.MAX_VALUE) {
            long quotient = rest / 100;
            int pair = (int) (rest - quotient * 100) << 1;
            out[--i] = PAIRS[pair + 1];
            out[--i] = PAIRS[pair];
            rest = quotient;
        }
        int small = (int) rest;
        while (small >= 100) {
            int quotient = small / 100;
            int pair = (small - quotient * 100) << 1;
            out[--i] = PAIRS[pair + 1];
            out[--i] = PAIRS[pair];
            small = quotient;
        }
        if (small >= 10) {
            out[--i] = PAIRS[(small << 1) + 1];
            out[--i] = PAIRS[small << 1];
        } else {
            out[--i] = (byte) ('0' + small);
        }
        return end;
    }

    /** Returns the number of decimal digits of a non-negative number. */
    static int digits(long value) {
        long bound = 10;
        for (int digits = 1; digits < 19; digits++) {
            if (value < bound) {
                return digits;
            }
            bound *= 10;
        }
        return 19;
    }

    private static int radix62(byte[] out, int at, long id) {
        String text = IdStrings.toRadix62(id);
        for (int i = 0; i < text.length(); i++) {
            out[at + i] = (byte) text.charAt(i);
        }
        return at + text.length();
    }
}
