package dev.cosid.lease;

import java.util.Optional;

/**
 * The one rule for the names of segment counters and id spaces (Snowflake generators): 1 to
 * {@value #MAX_LENGTH} characters of {@code A-Z a-z 0-9 . _ -}, other than {@code .} and {@code ..}.
 *
 * <p>Every such name can be one segment of a URL path as it is ({@code /v1/segments/{name}}, Leaf's
 * {@code /api/segment/get/{key}}), a command-line argument, a property key and a store key, so a counter
 * made one way can be used every other way. {@value #MAX_LENGTH} is the width of the stores' name
 * columns and of Leaf's {@code biz_tag}. The runtime, every store, the command line, the HTTP server and
 * the Spring Boot starter check names here, before anything is written, and refuse a bad one with the
 * same message.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * String name = Names.require("invoice");   // "invoice"
 * Names.require("../x");                    // IllegalArgumentException:
 * // name '../x' contains the character '/'; a counter or id space name is 1 to 128 characters of
 * // A-Z a-z 0-9 . _ -, other than . and ..
 * }</pre>
 */
public final class Names {

    /** The longest name: the width of the stores' name columns and of Leaf's {@code biz_tag}. */
    public static final int MAX_LENGTH = 128;

    /** The rule, as every refusal states it. */
    public static final String RULE = "a counter or id space name is 1 to " + MAX_LENGTH
            + " characters of A-Z a-z 0-9 . _ -, other than . and ..";

    /** How much of a long name a message shows. */
    private static final int SHOWN = 40;

    private Names() {
    }

    /**
     * Reports whether a name follows the rule.
     *
     * @param name the name, possibly null
     * @return true when {@link #require(String)} would accept it
     */
    public static boolean isValid(String name) {
        return broken(name) == null;
    }

    /**
     * Returns the name if it follows the rule.
     *
     * @param name a segment counter's or an id space's name
     * @return the same name
     * @throws IllegalArgumentException naming the value, what is wrong with it and the rule
     */
    public static String require(String name) {
        Optional<String> problem = problem(name);
        if (problem.isPresent()) {
            throw new IllegalArgumentException(problem.get() + "; " + RULE);
        }
        return name;
    }

    /**
     * Says what breaks the rule, without stating the rule: for a report that lists several names and
     * states the rule ({@link #RULE}) once.
     *
     * @param name the name, possibly null
     * @return {@code name 'a b' contains the character U+0020}, or empty when the name follows the rule
     */
    public static Optional<String> problem(String name) {
        String problem = broken(name);
        return problem == null ? Optional.empty() : Optional.of("name '" + shown(name) + "' " + problem);
    }

    /** What breaks the rule, or null when nothing does. */
    private static String broken(String name) {
        if (name == null || name.isEmpty()) {
            return "is empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "has " + name.length() + " characters";
        }
        if (name.equals(".") || name.equals("..")) {
            return "is a path step, which a URL cannot carry as a name";
        }
        for (int i = 0; i < name.length(); ) {
            int c = name.codePointAt(i);
            if (!allowed(c)) {
                return Character.isISOControl(c) || Character.isWhitespace(c) || !Character.isDefined(c)
                        ? "contains the character " + String.format(java.util.Locale.ROOT, "U+%04X", c)
                        : "contains the character '" + new String(Character.toChars(c)) + "'";
            }
            i += Character.charCount(c);
        }
        return null;
    }

    private static boolean allowed(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_'
                || c == '-';
    }

    /** The name as a one-line message shows it: control characters as '?', a long name cut short. */
    private static String shown(String name) {
        if (name == null) {
            return "";
        }
        String cut = name;
        if (name.length() > SHOWN) {
            // a cut never splits a surrogate pair
            cut = name.substring(0, Character.isHighSurrogate(name.charAt(SHOWN - 1)) ? SHOWN - 1 : SHOWN) + "...";
        }
        StringBuilder b = new StringBuilder(cut.length());
        cut.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return b.toString();
    }
}
