package dev.cosid.lease;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens a lease store from its URL: {@code memory:}, and whatever the store modules on the class path
 * register ({@code cosid-jdbc}: {@code sqlite:} and {@code jdbc:}; {@code cosid-redis}: {@code redis://},
 * {@code rediss://}, {@code redis-sentinel://} and {@code redis-cluster://}; {@code cosid-zookeeper}:
 * {@code zookeeper://}; {@code cosid-etcd}: {@code etcd://}).
 *
 * <p>It also masks store URLs for messages. A URL of a syntax CosId knows shows its user but never a
 * password, in the user info or in any {@code password}, {@code pwd}, {@code secret} or {@code token}
 * parameter; a URL of any other syntax shows its scheme only, because CosId cannot tell where its
 * secrets are.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (LeaseStore store = LeaseStores.open("sqlite:/var/lib/cosid/cosid.db")) {
 *     ...
 * }
 * LeaseStores.redact("redis://app:s3cret@cache:6379");   // redis://app:***@cache:6379
 * LeaseStores.redact("jdbc:oracle:thin:app/s3cret@db");  // jdbc:oracle:...
 * }</pre>
 */
public final class LeaseStores {

    /** The module that opens each URL prefix CosId ships a store for. */
    private static final Map<String, String> MODULES = Map.ofEntries(
            Map.entry("sqlite:", "cosid-jdbc"), Map.entry("jdbc:sqlite:", "cosid-jdbc"),
            Map.entry("jdbc:postgresql:", "cosid-jdbc"), Map.entry("jdbc:mariadb:", "cosid-jdbc"),
            Map.entry("jdbc:mysql:", "cosid-jdbc"), Map.entry("jdbc:h2:", "cosid-jdbc"),
            Map.entry("redis://", "cosid-redis"), Map.entry("rediss://", "cosid-redis"),
            Map.entry("redis-sentinel://", "cosid-redis"), Map.entry("redis-cluster://", "cosid-redis"),
            Map.entry("zookeeper://", "cosid-zookeeper"), Map.entry("etcd://", "cosid-etcd"));
    /** A parameter whose name says it holds a secret, in {@code ?a=b&c=d}, {@code ;a=b} and {@code (a=b)} forms. */
    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?i)([?&;(,]\\s*[\\w.\\-]*(?:password|passwd|pwd|secret|token)[\\w.\\-]*\\s*=)([^&;)\\s]*)");
    /** A user info inside a message: {@code //user:password@} up to the last {@code @} before a space or slash. */
    private static final Pattern USER_INFO_IN_TEXT = Pattern.compile("//([^\\s/]*)@");
    /** Secrets shorter than this are masked where the URL syntax shows them, but not searched for in free text. */
    private static final int SHORTEST_SEARCHED_SECRET = 3;
    private static final String MASK = "***";

    private LeaseStores() {
    }

    /**
     * Opens the store a URL names.
     *
     * @param url the store URL
     * @return the store, owned by the caller
     * @throws IllegalArgumentException when no store on the class path opens the URL: the message names
     *     the module to add, or the URL's scheme and the prefixes that are supported
     */
    public static LeaseStore open(String url) {
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("store URL is empty");
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.equals("memory:")) {
            return new InMemoryLeaseStore();
        }
        List<String> known = new ArrayList<>(List.of("memory:"));
        for (LeaseStoreProvider provider : ServiceLoader.load(LeaseStoreProvider.class)) {
            for (String prefix : provider.prefixes()) {
                if (lower.startsWith(prefix)) {
                    return provider.open(url);
                }
                known.add(prefix);
            }
        }
        String module = MODULES.entrySet().stream().filter(entry -> lower.startsWith(entry.getKey()))
                .max(Comparator.comparingInt(entry -> entry.getKey().length())).map(Map.Entry::getValue).orElse(null);
        if (module != null) {
            throw new IllegalArgumentException("store URL '" + redact(url) + "' needs the module dev.cosid:" + module
                    + ", which is not on the class path: add it beside dev.cosid:cosid-core");
        }
        if (scheme(url) == null) {
            throw new IllegalArgumentException("store URL '" + redact(url) + "' has no scheme; supported: "
                    + String.join(", ", known) + " (a SQLite file is sqlite:PATH)");
        }
        throw new IllegalArgumentException("unknown store URL scheme '" + scheme(url) + "'; supported: "
                + String.join(", ", known));
    }

    /**
     * Masks the secrets of a store URL for messages.
     *
     * @param url a store URL
     * @return for a syntax CosId knows, the URL with the password of its user info and the values of its
     *     secret parameters replaced by {@code ***}; for any other syntax, its scheme followed by {@code ...};
     *     for a text with spaces (a message), the text with every user info and secret parameter masked
     */
    public static String redact(String url) {
        if (url == null) {
            return "null";
        }
        if (url.chars().anyMatch(Character::isWhitespace)) {
            return redactText(url);
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (scheme(url) == null) {
            // no scheme, so no syntax to find a secret in: show it only if it holds no user info or separator
            return url.matches("[\\w./~\\-]*") ? url : MASK;
        }
        if (!knownSyntax(lower)) {
            return scheme(url) + "...";
        }
        String masked = url;
        int[] userInfo = userInfo(masked);
        if (userInfo != null) {
            String info = masked.substring(userInfo[0], userInfo[1]);
            int colon = info.indexOf(':');
            String shown = colon < 0 ? MASK : info.substring(0, colon + 1) + MASK;
            masked = masked.substring(0, userInfo[0]) + shown + masked.substring(userInfo[1]);
        }
        return SECRET_PARAMETER.matcher(masked).replaceAll(match -> Matcher.quoteReplacement(match.group(1) + MASK));
    }

    /**
     * Masks a store URL and every secret it holds wherever they appear in a text, such as a driver's
     * exception message that echoes the URL or a part of it.
     *
     * @param text a message, or {@code null}
     * @param url the store URL whose secrets to mask
     * @return the text with the URL redacted and each secret of three or more characters, as written and
     *     as percent-decoded, replaced by {@code ***}
     */
    public static String mask(String text, String url) {
        if (text == null || url == null || url.isEmpty()) {
            return String.valueOf(text);
        }
        String masked = text.replace(url, redact(url));
        for (String secret : secrets(url)) {
            masked = masked.replace(secret, MASK);
        }
        return masked;
    }

    /**
     * Returns the secrets a store URL holds, as written and percent-decoded, longest first.
     *
     * @param url a store URL
     * @return the password of its user info and the values of its secret parameters; for a syntax CosId
     *     does not know, everything after its scheme; secrets shorter than three characters are left out
     */
    public static List<String> secrets(String url) {
        if (url == null) {
            return List.of();
        }
        Set<String> found = new LinkedHashSet<>();
        String lower = url.toLowerCase(Locale.ROOT);
        if (scheme(url) == null) {
            found.add(url);
        } else if (!knownSyntax(lower)) {
            found.add(url.substring(scheme(url).length()));
        } else {
            int[] userInfo = userInfo(url);
            if (userInfo != null) {
                String info = url.substring(userInfo[0], userInfo[1]);
                found.add(info.substring(info.indexOf(':') + 1));
            }
            Matcher parameter = SECRET_PARAMETER.matcher(url);
            while (parameter.find()) {
                found.add(parameter.group(2));
            }
        }
        Set<String> both = new LinkedHashSet<>();
        for (String secret : found) {
            both.add(secret);
            both.add(decoded(secret));
        }
        return both.stream().filter(secret -> secret.strip().length() >= SHORTEST_SEARCHED_SECRET)
                .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    }

    /** A message, not a URL: every user info and secret parameter in it masked, wherever it is. */
    private static String redactText(String text) {
        String masked = USER_INFO_IN_TEXT.matcher(text).replaceAll(match -> {
            String info = match.group(1);
            int colon = info.indexOf(':');
            return Matcher.quoteReplacement("//" + (colon < 0 ? MASK : info.substring(0, colon + 1) + MASK) + "@");
        });
        return SECRET_PARAMETER.matcher(masked).replaceAll(match -> Matcher.quoteReplacement(match.group(1) + MASK));
    }

    private static boolean knownSyntax(String lower) {
        return lower.equals("memory:") || MODULES.keySet().stream().anyMatch(lower::startsWith);
    }

    /**
     * The scheme of a URL: {@code mongodb:}, or for JDBC the driver's part too, {@code jdbc:oracle:};
     * {@code null} when the text has none.
     */
    private static String scheme(String url) {
        int colon = url.indexOf(':');
        if (colon < 0) {
            return null;
        }
        if (url.regionMatches(true, 0, "jdbc:", 0, 5)) {
            int second = url.indexOf(':', 5);
            colon = second < 0 ? colon : second;
        }
        String scheme = url.substring(0, colon + 1);
        // a scheme is letters, digits, '+', '-' and '.': anything else is no scheme and may be a secret
        return scheme.matches("[A-Za-z][A-Za-z0-9+.\\-]*:(?:[A-Za-z0-9+.\\-]+:)?") ? scheme : null;
    }

    /**
     * The span of the user info in {@code scheme://user:password@host...}: between the {@code //} and the
     * last {@code @} before any parameters, so an unencoded {@code @} in the password stays inside it.
     */
    private static int[] userInfo(String url) {
        int slashes = url.indexOf("//");
        if (slashes < 0) {
            return null;
        }
        int start = slashes + 2;
        int end = url.length();
        for (int i = start; i < url.length(); i++) {
            char c = url.charAt(i);
            if (c == '?' || c == ';' || c == '#') {
                end = i;
                break;
            }
        }
        int at = url.lastIndexOf('@', end - 1);
        return at < start ? null : new int[] {start, at};
    }

    private static String decoded(String secret) {
        try {
            return URLDecoder.decode(secret.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notEncoded) {
            return secret;
        }
    }
}
