package dev.cosid.redis;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Lettuce reports every reconnect through java.util.logging; cluster tests restart nodes on purpose. */
final class QuietLettuce {

    /** Held so the logger, and so its level, is not collected. */
    private static final Logger LETTUCE = Logger.getLogger("io.lettuce");

    private QuietLettuce() {
    }

    /** Turns Lettuce's logging off for this JVM. */
    static void install() {
        LETTUCE.setLevel(Level.OFF);
    }
}
