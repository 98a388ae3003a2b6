package dev.cosid;

/**
 * Text forms of ids: fixed-width, order-preserving radix 62 and Crockford base 32, and CosId's
 * unpadded radix 62.
 *
 * <p>The fixed-width forms are zero-padded to the width of any 63-bit number (11 radix-62 digits, 13
 * base-32 digits), so sorting the strings sorts the ids. Parsing is the exact inverse and rejects
 * anything else with a message naming the problem, a string of the wrong width included.
 *
 * <p>The unpadded radix-62 form is the one CosId 2.x/3.x writes by default
 * ({@code Radix62IdConverter.INSTANCE}): the same digits {@code 0-9A-Za-z}, without leading zeros, so
 * ids issued before about April 2026 have 10 characters and later ones 11. It does not sort as the ids
 * do across that change of width. CosId writes id 0 as the empty string, which its own parser rejects;
 * {@link #toRadix62Unpadded(long)} writes {@code "0"} and {@link #parseRadix62Unpadded(String)} reads
 * both.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * String text = IdStrings.toRadix62(id);  // "0B3kq7Tz0aA"
 * long back = IdStrings.parseRadix62(text);
 * long fromCosId = IdStrings.parseRadix62Unpadded("B3kq7Tz0aA");
 * }</pre>
 */
public final class IdStrings {

    private static final String RADIX62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final String CROCKFORD32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    /** Digits needed for 2^63 - 1 in radix 62. */
    public static final int RADIX62_WIDTH = 11;
    /** Digits needed for 2^63 - 1 in base 32. */
    public static final int CROCKFORD32_WIDTH = 13;

    private IdStrings() {
    }

    /**
     * Returns the 11-digit radix-62 form of a non-negative id.
     *
     * @param id the id
     * @return its text
     */
    public static String toRadix62(long id) {
        requireNonNegative(id);
        char[] digits = new char[RADIX62_WIDTH];
        long rest = id;
        for (int i = RADIX62_WIDTH - 1; i >= 0; i--) {
            digits[i] = RADIX62.charAt((int) (rest % 62));
            rest /= 62;
        }
        return new String(digits);
    }

    /**
     * Parses the radix-62 form.
     *
     * @param text exactly 11 digits of {@code 0-9A-Za-z}
     * @return the id
     */
    public static long parseRadix62(String text) {
        if (text != null && text.length() < RADIX62_WIDTH) {
            throw new IllegalArgumentException("radix-62 '" + text + "' has " + text.length() + " characters; expected "
                    + RADIX62_WIDTH + " (CosId's unpadded form is read by parseRadix62Unpadded)");
        }
        requireWidth(text, RADIX62_WIDTH, "radix-62");
        return radix62(text);
    }

    /**
     * Returns the unpadded radix-62 form CosId 2.x/3.x writes with {@code Radix62IdConverter.INSTANCE}:
     * no leading zeros, and {@code "0"} for id 0, where CosId writes an empty string.
     *
     * @param id a non-negative id
     * @return its text, 1 to 11 digits
     */
    public static String toRadix62Unpadded(long id) {
        String padded = toRadix62(id);
        int first = 0;
        while (first < RADIX62_WIDTH - 1 && padded.charAt(first) == '0') {
            first++;
        }
        return padded.substring(first);
    }

    /**
     * Parses radix 62 of any width up to 11 digits: CosId's unpadded form, or the padded one. The empty
     * string is id 0, as CosId writes it.
     *
     * @param text 0 to 11 digits of {@code 0-9A-Za-z}
     * @return the id
     */
    public static long parseRadix62Unpadded(String text) {
        if (text == null) {
            throw new IllegalArgumentException("radix-62 text is null");
        }
        if (text.length() > RADIX62_WIDTH) {
            throw new IllegalArgumentException("radix-62 '" + text + "' has " + text.length()
                    + " characters; expected at most " + RADIX62_WIDTH);
        }
        return radix62(text);
    }

    private static long radix62(String text) {
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            int digit = RADIX62.indexOf(text.charAt(i));
            if (digit < 0) {
                throw new IllegalArgumentException("'" + text.charAt(i) + "' at position " + i + " of '" + text
                        + "' is not a radix-62 digit (0-9A-Za-z)");
            }
            value = accumulate(value, 62, digit, text, "radix-62");
        }
        return value;
    }

    /**
     * Returns the 13-digit Crockford base-32 form of a non-negative id.
     *
     * @param id the id
     * @return its text, in upper case
     */
    public static String toCrockford32(long id) {
        requireNonNegative(id);
        char[] digits = new char[CROCKFORD32_WIDTH];
        long rest = id;
        for (int i = CROCKFORD32_WIDTH - 1; i >= 0; i--) {
            digits[i] = CROCKFORD32.charAt((int) (rest & 31));
            rest >>>= 5;
        }
        return new String(digits);
    }

    /**
     * Parses the Crockford base-32 form, in either case.
     *
     * @param text exactly 13 Crockford digits
     * @return the id
     */
    public static long parseCrockford32(String text) {
        requireWidth(text, CROCKFORD32_WIDTH, "base-32");
        long value = 0;
        for (int i = 0; i < text.length(); i++) {
            int digit = CROCKFORD32.indexOf(Character.toUpperCase(text.charAt(i)));
            if (digit < 0) {
                throw new IllegalArgumentException("'" + text.charAt(i) + "' at position " + i + " of '" + text
                        + "' is not a Crockford base-32 digit (0-9, A-Z without I, L, O, U)");
            }
            value = accumulate(value, 32, digit, text, "base-32");
        }
        return value;
    }

    private static long accumulate(long value, int radix, int digit, String text, String form) {
        if (value > (Long.MAX_VALUE - digit) / radix) {
            throw new IllegalArgumentException(form + " '" + text + "' exceeds the largest id " + Long.MAX_VALUE);
        }
        return value * radix + digit;
    }

    private static void requireWidth(String text, int width, String form) {
        if (text == null) {
            throw new IllegalArgumentException(form + " text is null");
        }
        if (text.length() != width) {
            throw new IllegalArgumentException(form + " '" + text + "' has " + text.length() + " characters; expected "
                    + width);
        }
    }

    private static void requireNonNegative(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("id " + id + " is negative; ids are non-negative 63-bit numbers");
        }
    }
}
