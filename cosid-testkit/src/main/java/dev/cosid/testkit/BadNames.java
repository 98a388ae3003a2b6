package dev.cosid.testkit;

import dev.cosid.lease.Names;
import java.util.List;

/**
 * The one list of counter and id space names that break the rule of {@link Names}, which the tests of
 * every surface (the runtime, the stores, the command line, the HTTP server, Spring Boot) feed in, so
 * that each is seen to refuse the same names with the same message; and names at the edges of the rule
 * that every surface accepts.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * for (String bad : BadNames.ALL) {
 *     IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> runtime.segment(bad));
 *     assertEquals(BadNames.refusal(bad), refused.getMessage());
 * }
 * }</pre>
 */
public final class BadNames {

    /** Names no URL path segment carries as they are: each is refused everywhere. */
    public static final List<String> ALL = List.of(
            "",
            ".",
            "..",
            "../x",
            "a/b",
            "a\\b",
            "a b",
            " order",
            "order\n",
            "tab\there",
            "a?b",
            "a#b",
            "a%2Fb",
            "a:b",
            "Ünïcødé",
            "x".repeat(Names.MAX_LENGTH + 1));

    /** Names at the edges of the rule: each is accepted everywhere and kept exactly. */
    public static final List<String> EDGES = List.of(
            "x",
            "...",
            ".x",
            "x.",
            "a..b",
            "-",
            "_",
            "__share__",
            "Order",
            "order",
            "A-Z_a-z.0-9",
            "x".repeat(Names.MAX_LENGTH));

    private BadNames() {
    }

    /**
     * Returns the message every surface refuses a bad name with: that of {@link Names#require(String)}.
     *
     * @param name one of {@link #ALL}
     * @return the message
     * @throws AssertionError when the rule accepts the name
     */
    public static String refusal(String name) {
        try {
            Names.require(name);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("the rule accepts '" + name + "'");
    }
}
