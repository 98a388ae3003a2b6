package dev.cosid.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cosid.partition.LeaderChecker.Verdict;
import dev.cosid.partition.LeaderChecker.Write;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker of the leader fault runs on landed orders written by hand: it must see what it exists to see. */
class LeaderCheckerTest {

    private static Write write(String line) {
        return Write.parse(line);
    }

    @Test
    void tokensThatOnlyGrowAreNotStaleAndEachNewOneIsALeaderChangeWithItsGap() {
        Verdict verdict = LeaderChecker.check(List.of(write("a 1:0 1 1000"), write("a 1:0 2 1100"),
                write("b 2:0 1 4100"), write("b 2:0 2 4200"), write("a 3:0 1 9200")));
        assertEquals(5, verdict.writes());
        assertEquals(List.of(), verdict.stale());
        assertEquals(2, verdict.changes().size());
        assertEquals(3000, verdict.changes().get(0).gapMillis());
        assertEquals(5000, verdict.longestGapMillis());
    }

    @Test
    void aDeposedLeadersWriteAfterItsSuccessorsFirstIsStale() {
        Verdict verdict = LeaderChecker.check(List.of(write("a 1:0 1 1000"), write("b 2:0 1 4000"),
                write("a 1:0 2 4100"), write("b 2:0 2 4200")));
        assertEquals(List.of(write("a 1:0 2 4100")), verdict.stale());
        assertEquals(1, verdict.changes().size(), "the stale write is no change of leader");
        assertEquals(3000, verdict.longestGapMillis(), "the gap runs from the older leader's last write before");
    }

    @Test
    void aDeposedLeadersWriteBeforeItsSuccessorsFirstIsNotStale() {
        Verdict verdict = LeaderChecker.check(List.of(write("a 1:0 1 1000"), write("a 1:0 2 5000"),
                write("b 2:0 1 4000")));
        assertEquals(List.of(), verdict.stale(), "commit order decides, not the writers' clocks");
        assertEquals(-1000, verdict.longestGapMillis(), "an overlap of the writers' clocks shows as a negative gap");
    }
}
