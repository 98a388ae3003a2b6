package dev.cosid.jackson;

import dev.cosid.IdStrings;

/**
 * How an id is written as a JSON string: in decimal, or in the fixed-width, order-preserving radix-62
 * form of {@link IdStrings}.
 *
 * <p>JavaScript reads JSON numbers as doubles, which hold integers exactly only up to 2^53; a default
 * layout id is larger, so a browser would change it. As a string it stays exact.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * String text = IdFormat.RADIX62.format(id);    // "0B3kq7Tz0aA"
 * long back = IdFormat.RADIX62.parse(text);
 * }</pre>
 */
public enum IdFormat {

    /** The decimal digits, as {@link Long#toString(long)} writes them. */
    DECIMAL {
        @Override
        public String format(long id) {
            return Long.toString(id);
        }

        @Override
        public long parse(String text) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a decimal id");
            }
        }
    },

    /** The 11-digit radix-62 form of {@link IdStrings#toRadix62(long)}; ids only, never negative. */
    RADIX62 {
        @Override
        public String format(long id) {
            return IdStrings.toRadix62(id);
        }

        @Override
        public long parse(String text) {
            return IdStrings.parseRadix62(text.trim());
        }
    };

    /**
     * Writes an id.
     *
     * @param id the id
     * @return its text
     * @throws IllegalArgumentException when the form cannot hold the value (a negative radix-62 id)
     */
    public abstract String format(long id);

    /**
     * Reads an id written in this form.
     *
     * @param text the text
     * @return the id
     * @throws IllegalArgumentException naming the text when it is not this form
     */
    public abstract long parse(String text);
}
