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
 * The window word against close: the generator's unit is used up, so the racing id starts the next unit (within
 * the lead). Close is one compare-and-set on the same word, so it reports that unit exactly when the id was
 * issued, and the id is refused otherwise.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the id came first, in the next unit: close reports that unit")
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "close came first: the id is refused")
@Outcome(expect = FORBIDDEN, desc = "an id past the last issued millisecond close reported")
@State
public class WordAndClose {

    static final long T0 = 1_800_000_000_000L;
    static final IdLayout LAYOUT = new IdLayout(T0 - 1_000, 1, 41, 2, 1);

    private final LeasedSnowflake generator;

    public WordAndClose() {
        ManualClock clock = new ManualClock(T0);
        generator = new LeasedSnowflake("orders", LAYOUT, new HandKeeper(1, T0 - 1, T0 + 10), clock, 0, 5);
        generator.nextIds(2); // unit T0 used up: the next id starts unit T0 + 1, within the lead
    }

    @Actor
    public void close(JJ_Result r) {
        r.r1 = generator.close() - T0;
    }

    @Actor
    public void issue(JJ_Result r) {
        try {
            r.r2 = LAYOUT.parse(generator.nextId()).timestampMillis() - T0;
        } catch (IdUnavailableException refused) {
            r.r2 = -1;
        }
    }
}
