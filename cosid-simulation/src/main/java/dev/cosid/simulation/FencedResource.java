package dev.cosid.simulation;

import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.MemberId;
import java.util.ArrayList;
import java.util.List;

/**
 * A resource that fences writes as the JDBC fence does: it accepts a write only if its token is not older
 * than the newest token it has accepted, and records every accepted write. Built with {@code compares}
 * false it accepts every write, the broken resource a negative control needs.
 */
final class FencedResource {

    /**
     * One accepted write.
     *
     * @param token the writer's token
     * @param member the writer
     * @param atNanos when, in virtual nanoseconds
     */
    record Write(FencingToken token, MemberId member, long atNanos) {
    }

    private final boolean compares;
    private final List<Write> accepted = new ArrayList<>();
    private FencingToken newest = FencingToken.NO_EPOCH;
    private long refused;

    FencedResource(boolean compares) {
        this.compares = compares;
    }

    /**
     * Writes with a token.
     *
     * @return whether the write was accepted
     */
    boolean write(FencingToken token, MemberId member, long atNanos) {
        if (compares && newest.supersedes(token)) {
            refused++;
            return false;
        }
        if (token.supersedes(newest)) {
            newest = token;
        }
        accepted.add(new Write(token, member, atNanos));
        return true;
    }

    List<Write> accepted() {
        return accepted;
    }

    long refused() {
        return refused;
    }
}
