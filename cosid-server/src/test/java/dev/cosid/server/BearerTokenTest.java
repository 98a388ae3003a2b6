package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokenTest {

    private static final String SECRET = "0123456789abcdef-secret";

    @TempDir
    Path dir;

    @Test
    void matchesOnlyItsOwnBearerHeader() {
        BearerToken token = BearerToken.of(SECRET, "a test");
        assertTrue(token.matches("Bearer " + SECRET));
        assertTrue(token.matches("bearer " + SECRET), "the scheme is case-insensitive");
        assertFalse(token.matches(null));
        assertFalse(token.matches(SECRET));
        assertFalse(token.matches("Bearer " + SECRET + "x"));
        assertFalse(token.matches("Basic " + SECRET));
        assertFalse(token.toString().contains(SECRET), "toString never shows the token");
    }

    @Test
    void readsAFileIgnoringOneTrailingLineBreak() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), SECRET + "\n");
        assertTrue(BearerToken.fromFile(file).matches("Bearer " + SECRET));
    }

    @Test
    void refusesAShortEmptyUnreadableOrSpacedToken() throws Exception {
        Path shortFile = Files.writeString(dir.resolve("short"), "abc\n");
        assertEquals("the token in the token file " + shortFile + " has 3 characters; a token needs at least 16 "
                        + "(try: openssl rand -hex 32)",
                assertThrows(IllegalArgumentException.class, () -> BearerToken.fromFile(shortFile)).getMessage());
        Path empty = Files.writeString(dir.resolve("empty"), "");
        assertEquals("the token file " + empty + " is empty",
                assertThrows(IllegalArgumentException.class, () -> BearerToken.fromFile(empty)).getMessage());
        Path missing = dir.resolve("missing");
        assertEquals("cannot read the token file " + missing + ": no such file",
                assertThrows(IllegalArgumentException.class, () -> BearerToken.fromFile(missing)).getMessage());
        Path spaced = Files.writeString(dir.resolve("spaced"), "0123456789 abcdef\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BearerToken.fromFile(spaced)).getMessage()
                .contains("at position 10"));
    }

    @Test
    void comesFromTheFileOrTheEnvironmentButNotBoth() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), SECRET);
        assertTrue(BearerToken.resolve(null, Map.of()).isEmpty());
        assertTrue(BearerToken.resolve(file, Map.of()).orElseThrow().matches("Bearer " + SECRET));
        assertTrue(BearerToken.resolve(null, Map.of("COSID_TOKEN", SECRET)).orElseThrow().matches("Bearer " + SECRET));
        assertEquals("both a token file (" + file + ") and COSID_TOKEN are set; set one",
                assertThrows(IllegalArgumentException.class,
                        () -> BearerToken.resolve(file, Map.of("COSID_TOKEN", SECRET))).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> BearerToken.resolve(null, Map.of("COSID_TOKEN", "short"))).getMessage()
                .startsWith("the token in the environment variable COSID_TOKEN has 5 characters"));
    }
}
