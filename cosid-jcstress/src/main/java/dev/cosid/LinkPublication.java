package dev.cosid;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.cosid.lease.SegmentRange;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * A link the fetch publishes to {@code next} is seen with its range: a caller that moves on to it reads its
 * bounds, its range and its cursor as the fetch built them, never the defaults of an object under construction.
 */
@JCStressTest
@Outcome(id = "5, 6, 5, 5", expect = ACCEPTABLE, desc = "the link is seen whole: bounds 5..6, cursor at 5, range from 5")
@Outcome(id = "-1, -1, -1, -1", expect = ACCEPTABLE, desc = "the link is not published yet")
@Outcome(expect = FORBIDDEN, desc = "a link seen without its range or with its cursor elsewhere")
@State
public class LinkPublication {

    private final SegmentLink tail = new SegmentLink(new SegmentRange("shop", "orders", 1, 4), 0);

    @Actor
    public void fetch() {
        tail.next = new SegmentLink(new SegmentRange("shop", "orders", 5, 6), 0);
    }

    @Actor
    public void moveOn(JJJJ_Result r) {
        SegmentLink next = tail.next;
        if (next == null) {
            r.r1 = -1;
            r.r2 = -1;
            r.r3 = -1;
            r.r4 = -1;
        } else {
            r.r1 = next.first;
            r.r2 = next.last;
            r.r3 = next.cursor();
            r.r4 = next.range.first();
        }
    }
}
