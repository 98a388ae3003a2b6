package dev.cosid;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.cosid.time.ManualClock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The window word and its ceiling: the generator stands at its ceiling with its last unit used up, and a renewal
 * raises the ceiling by one unit while another thread asks for an id. The renewing thread then issues under the
 * new window (and caches it where the other reads it without a lock); the other is refused under the old one or
 * issues under the new; nobody issues past the new ceiling.
 */
@JCStressTest
@Outcome(id = "1, -1", expect = ACCEPTABLE, desc = "the other thread saw the old ceiling and was refused")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both issued in the unit the renewal opened")
@Outcome(expect = FORBIDDEN, desc = "the renewal not seen by its own thread, or an id past the new ceiling")
@State
public class CeilingRenewal {

    static final long T0 = 1_800_000_000_000L;
    static final IdLayout LAYOUT = new IdLayout(T0 - 1_000, 1, 41, 2, 1);

    private final HandKeeper keeper = new HandKeeper(1, T0 - 1, T0);
    private final LeasedSnowflake generator;

    public CeilingRenewal() {
        generator = new LeasedSnowflake("orders", LAYOUT, keeper, new ManualClock(T0), 0, 5);
        generator.nextIds(2); // unit T0, the ceiling's, used up
    }

    @Actor
    public void renewAndIssue(JJ_Result r) {
        keeper.bind(1, T0 - 1, T0 + 1);
        r.r1 = issue();
    }

    @Actor
    public void issueBeside(JJ_Result r) {
        r.r2 = issue();
    }

    private long issue() {
        try {
            return LAYOUT.parse(generator.nextId()).timestampMillis() - T0;
        } catch (IdUnavailableException refused) {
            return -1;
        }
    }
}
