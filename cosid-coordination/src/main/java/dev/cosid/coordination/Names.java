package dev.cosid.coordination;

import java.nio.charset.StandardCharsets;

/** The rule shared by {@link Role} and {@link MemberId}: non-empty, at most 249 UTF-8 bytes. */
final class Names {

    static final int MAX_BYTES = 249;

    private Names() {
    }

    static String require(String kind, String name) {
        if (name == null) {
            throw new NullPointerException(kind + " is null");
        }
        if (name.isEmpty()) {
            throw new CoordinationException(kind + " is empty");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new CoordinationException(kind + " '" + name.substring(0, Math.min(name.length(), 40))
                    + "...' has " + bytes + " UTF-8 bytes; at most " + MAX_BYTES + " are allowed");
        }
        return name;
    }
}
