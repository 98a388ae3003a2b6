package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RateHistoryTest {

    @Test
    void eachSampleRecordsTheRateSinceThePreviousOne() {
        RateHistory history = new RateHistory(10);
        history.sample(1_000, 0);
        history.sample(2_000, 500);
        history.sample(4_000, 1_500); // a late sample averages over the two seconds
        assertArrayEquals(new double[] {500, 500}, history.rates());
        assertEquals(4_000, history.untilMillis());
    }

    @Test
    void keepsTheNewestRatesOnceFull() {
        RateHistory history = new RateHistory(3);
        for (int second = 0; second <= 5; second++) {
            history.sample(second * 1000L, second * (long) second * 100);
        }
        // totals 0,100,400,900,1600,2500: rates 100,300,500,700,900; the newest three stay
        assertArrayEquals(new double[] {500, 700, 900}, history.rates());
    }

    @Test
    void ignoresASampleThatIsNotLaterThanThePreviousOne() {
        RateHistory history = new RateHistory(5);
        history.sample(5_000, 10);
        history.sample(4_000, 20); // the clock stepped back
        history.sample(6_000, 30);
        assertArrayEquals(new double[] {20}, history.rates());
    }
}
