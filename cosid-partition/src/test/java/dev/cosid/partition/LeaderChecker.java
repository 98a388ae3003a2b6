package dev.cosid.partition;

import dev.cosid.coordination.FencingToken;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks what leaders wrote, in the order the store committed it (a topic read {@code read_committed}, a table by
 * its key): the tokens never go back, that is, no write of a deposed leader lands after its successor's first; and
 * lists every change of leader with how long the role went without a write in between.
 */
final class LeaderChecker {

    private LeaderChecker() {
    }

    /**
     * One landed write.
     *
     * @param member the worker that wrote it
     * @param token the token of the leadership it was written under
     * @param seq its number within that leadership
     * @param wall when the worker made it, by the machine's clock
     */
    record Write(String member, FencingToken token, long seq, long wall) {
        static Write parse(String text) {
            String[] parts = text.split(" ");
            return new Write(parts[0], FencingToken.parse(parts[1]), Long.parseLong(parts[2]),
                    Long.parseLong(parts[3]));
        }

        @Override
        public String toString() {
            return member + " " + token + " #" + seq + " @" + wall;
        }
    }

    /**
     * A change of leader in the landed order.
     *
     * @param from the last write under the older leadership
     * @param to the first write under the newer one
     */
    record Change(Write from, Write to) {
        /** How long the role went without a landed write across the change, in ms. */
        long gapMillis() {
            return to.wall() - from.wall();
        }
    }

    /**
     * The verdict over one store's writes.
     *
     * @param writes how many landed
     * @param stale the writes of a deposed leader that landed after its successor's first
     * @param changes the changes of leader
     */
    record Verdict(int writes, List<Write> stale, List<Change> changes) {

        long longestGapMillis() {
            return changes.stream().mapToLong(Change::gapMillis).max().orElse(0);
        }

        @Override
        public String toString() {
            return writes + " writes, " + changes.size() + " leader changes (longest gap " + longestGapMillis()
                    + " ms), stale " + stale.size() + (stale.isEmpty() ? "" : " e.g. " + stale.subList(0,
                    Math.min(3, stale.size())));
        }
    }

    /**
     * Checks writes in the order they landed.
     *
     * @param order the writes, in commit order
     * @return the stale writes and the changes of leader
     */
    static Verdict check(List<Write> order) {
        List<Write> stale = new ArrayList<>();
        List<Change> changes = new ArrayList<>();
        FencingToken newest = FencingToken.NO_EPOCH;
        Write last = null;
        for (Write write : order) {
            if (newest.supersedes(write.token())) {
                stale.add(write);
            } else if (write.token().supersedes(newest)) {
                if (last != null) {
                    changes.add(new Change(last, write));
                }
                newest = write.token();
            }
            if (!newest.supersedes(write.token())) {
                last = write;
            }
        }
        return new Verdict(order.size(), stale, changes);
    }
}
