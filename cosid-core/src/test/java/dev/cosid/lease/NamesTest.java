package dev.cosid.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The rule for counter and id space names, and the one message that states it. */
class NamesTest {

    private static final String RULE = "a counter or id space name is 1 to 128 characters of A-Z a-z 0-9 . _ -, "
            + "other than . and ..";

    private static String refusal(String name) {
        assertFalse(Names.isValid(name), name);
        return assertThrows(IllegalArgumentException.class, () -> Names.require(name)).getMessage();
    }

    @Test
    void namesOfTheRuleAreReturnedAsTheyAre() {
        for (String name : List.of("order", "x", "...", ".x", "a..b", "-", "_", "__share__", "Leaf-Segment_test.2",
                "x".repeat(128))) {
            assertSame(name, Names.require(name));
            assertTrue(Names.isValid(name), name);
        }
    }

    @Test
    void eachRefusalNamesTheValueWhatIsWrongAndTheRule() {
        assertEquals("name '' is empty; " + RULE, refusal(""));
        assertEquals("name '' is empty; " + RULE, refusal(null));
        assertEquals("name '.' is a path step, which a URL cannot carry as a name; " + RULE, refusal("."));
        assertEquals("name '..' is a path step, which a URL cannot carry as a name; " + RULE, refusal(".."));
        assertEquals("name '../x' contains the character '/'; " + RULE, refusal("../x"));
        assertEquals("name 'a b' contains the character U+0020; " + RULE, refusal("a b"));
        assertEquals("name 'order?' contains the character U+000A; " + RULE, refusal("order\n"));
        assertEquals("name 'a%2Fb' contains the character '%'; " + RULE, refusal("a%2Fb"));
        assertEquals("name 'Ünïcødé' contains the character 'Ü'; " + RULE, refusal("Ünïcødé"));
        assertEquals("name 'a😀' contains the character '😀'; " + RULE, refusal("a😀"));
        assertEquals("name '" + "x".repeat(40) + "...' has 129 characters; " + RULE, refusal("x".repeat(129)));
    }

    @Test
    void aRefusalIsOneLineHoweverLongOrStrangeTheName() {
        for (String name : List.of("a\r\nb", "\u0000", "x".repeat(39) + "😀" + "y".repeat(200), "\t".repeat(500))) {
            String message = refusal(name);
            assertEquals(1, message.lines().count(), message);
            assertTrue(message.length() < 200, message);
            assertTrue(message.endsWith(RULE), message);
        }
    }
}
