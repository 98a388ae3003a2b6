package dev.cosid.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The secret a client sends as {@code Authorization: Bearer TOKEN}; read from a file or an
 * environment variable, never from a command-line argument, which other users of the host can see.
 *
 * <p>A token has 16 to 4096 printable ASCII characters and no spaces. It is compared in constant
 * time, and {@link #toString()} never shows it.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Optional<BearerToken> token = BearerToken.resolve(Path.of("/etc/cosid/token"), System.getenv());
 * CosIdServer server = CosIdServer.builder(runtime).token(token.orElseThrow()).start();
 * }</pre>
 */
public final class BearerToken {

    /** The environment variable a token may come from. */
    public static final String ENVIRONMENT_VARIABLE = "COSID_TOKEN";
    /** The fewest characters a token may have. */
    public static final int MIN_LENGTH = 16;
    private static final int MAX_LENGTH = 4096;

    private final byte[] expected;

    private BearerToken(byte[] expected) {
        this.expected = expected;
    }

    /**
     * Checks and wraps a token.
     *
     * @param token 16 to 4096 printable ASCII characters, no spaces
     * @param source where it came from, for the error message
     * @return the token
     * @throws IllegalArgumentException naming the source when the token is too short, too long or not printable
     */
    public static BearerToken of(String token, String source) {
        Objects.requireNonNull(token, "token");
        if (token.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("the token in " + source + " has " + token.length()
                    + " characters; a token needs at least " + MIN_LENGTH + " (try: openssl rand -hex 32)");
        }
        if (token.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("the token in " + source + " has " + token.length()
                    + " characters; at most " + MAX_LENGTH);
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= ' ' || c > '~') {
                throw new IllegalArgumentException("the token in " + source + " has a space, control or non-ASCII "
                        + "character at position " + i + "; a bearer token is printable ASCII without spaces");
            }
        }
        return new BearerToken(token.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Reads a token from a file; one trailing line break is ignored.
     *
     * @param file the file holding the token
     * @return the token
     * @throws IllegalArgumentException naming the file when it cannot be read or holds no valid token
     */
    public static BearerToken fromFile(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + describe(e));
        }
        String token = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (token.isEmpty()) {
            throw new IllegalArgumentException("the token file " + file + " is empty");
        }
        return of(token, "the token file " + file);
    }

    /**
     * Finds the token: the file when one is given, else the {@value #ENVIRONMENT_VARIABLE} variable, else none.
     *
     * @param file the token file, or null
     * @param environment the process environment
     * @return the token, or empty when neither is set
     * @throws IllegalArgumentException when both are set, or the one that is set holds no valid token
     */
    public static Optional<BearerToken> resolve(Path file, Map<String, String> environment) {
        String variable = environment.get(ENVIRONMENT_VARIABLE);
        if (file != null && variable != null) {
            throw new IllegalArgumentException("both a token file (" + file + ") and " + ENVIRONMENT_VARIABLE
                    + " are set; set one");
        }
        if (file != null) {
            return Optional.of(fromFile(file));
        }
        if (variable != null) {
            return Optional.of(of(variable, "the environment variable " + ENVIRONMENT_VARIABLE));
        }
        return Optional.empty();
    }

    /**
     * Reports whether an {@code Authorization} header carries this token, in constant time.
     *
     * @param authorization the header's value, or null when absent
     * @return true for {@code Bearer TOKEN} with this token
     */
    public boolean matches(String authorization) {
        if (authorization == null || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] presented = authorization.substring(7).trim().getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, presented);
    }

    private static String describe(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public String toString() {
        return "BearerToken[" + expected.length + " characters]";
    }
}
