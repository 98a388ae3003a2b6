package dev.cosid.cli;

import dev.cosid.lease.SlotLease;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Instants as the command line shows them: the milliseconds, then ISO-8601 in UTC. */
final class Times {

    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private Times() {
    }

    /** {@code 1796238129443 (2026-12-03T10:22:09.443Z)}. */
    static String of(long epochMillis) {
        return epochMillis + " (" + iso(epochMillis) + ")";
    }

    /** {@code 2026-12-03T10:22:09.443Z}, always with milliseconds, so columns line up. */
    static String iso(long epochMillis) {
        return ISO.format(Instant.ofEpochMilli(epochMillis));
    }

    /** A lease with each of its instants in both forms. */
    static String lease(SlotLease lease) {
        return "slot " + lease.slot() + " of namespace '" + lease.namespace() + "': fence " + lease.fence()
                + ", floor " + of(lease.floor()) + ", ceiling " + of(lease.ceiling()) + ", expires at "
                + of(lease.expiresAt()) + ", owner " + lease.owner();
    }
}
