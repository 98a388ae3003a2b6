package dev.cosid;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The closed jump is seen by a racing draw: a draw either lands before the jump, and close reports its id as
 * the last issued, or after it, and is refused. Never an id that close does not count, which it would hand back.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the draw came first: close reports id 1 as the last")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "close came first: the draw is refused, close reports none")
@Outcome(expect = FORBIDDEN, desc = "an id issued past the last id close reported, or a refused draw counted")
@State
public class ClosedJump {

    private final SegmentChain chain;

    public ClosedJump() {
        ManualClock clock = new ManualClock(1_800_000_000_000L);
        InMemoryLeaseStore store = new InMemoryLeaseStore(clock);
        store.register("shop", new NamespaceRecord(1024, 1_000));
        SegmentPolicy policy = SegmentPolicy.of(2, 2, java.time.Duration.ofSeconds(1));
        chain = SegmentChain.start("shop", "orders", store, clock, new ManualScheduler(clock), CosIdListener.NOOP,
                policy, 0, store.reserveSegment("shop", "orders", 2));
    }

    @Actor
    public void close(JJ_Result r) {
        r.r1 = chain.close();
    }

    @Actor
    public void draw(JJ_Result r) {
        try {
            r.r2 = chain.nextId();
        } catch (IdUnavailableException refused) {
            r.r2 = -1;
        }
    }
}
