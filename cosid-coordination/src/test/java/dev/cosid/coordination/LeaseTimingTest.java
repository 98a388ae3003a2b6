package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseTimingTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final MemberId ME = MemberId.of("node-1");
    private static final FencingToken TOKEN = FencingToken.of(1000, (short) 3);
    private final ManualClock clock = new ManualClock(T0);
    private final LeaseConfig config = LeaseConfig.DEFAULT;

    @Test
    void leaseConfigRejectsBadExtentsNamingTheValues() {
        assertEquals("duration", assertThrows(NullPointerException.class,
                () -> LeaseConfig.of(null, Duration.ofSeconds(1), Duration.ofSeconds(1))).getMessage());
        assertEquals("challengeStagger", assertThrows(NullPointerException.class,
                () -> LeaseConfig.of(Duration.ofSeconds(3), Duration.ofSeconds(1), null)).getMessage());
        assertEquals("the renew interval of 30000 ms is not shorter than the lease duration of 30000 ms",
                assertThrows(CoordinationException.class, () -> LeaseConfig.of(Duration.ofSeconds(30),
                        Duration.ofSeconds(30), Duration.ofSeconds(5))).getMessage());
        assertTrue(assertThrows(CoordinationException.class, () -> LeaseConfig.of(Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1))).getMessage().startsWith("duration of 0.0 ms"));
        assertTrue(assertThrows(CoordinationException.class, () -> LeaseConfig.of(Duration.ofSeconds(3),
                Duration.ofNanos(500_000), Duration.ofSeconds(1))).getMessage().startsWith("renewInterval of 0.5 ms"));
        assertThrows(CoordinationException.class, () -> LeaseConfig.of(Duration.ofSeconds(3),
                Duration.ofSeconds(1), Duration.ofSeconds(-1)));
    }

    @Test
    void leaseConfigAcceptsALongRenewIntervalAndReportsTheMargin() {
        assertTrue(config.renewsWithMargin());
        LeaseConfig tight = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(11), Duration.ofSeconds(5));
        assertFalse(tight.renewsWithMargin());
        assertTrue(LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(1))
                .renewsWithMargin());
    }

    @Test
    void challengeDelaysGrowByTheStaggerAndSaturate() {
        assertEquals(0, config.challengeDelayMillis(-3));
        assertEquals(0, config.challengeDelayMillis(0));
        assertEquals(15_000, config.challengeDelayMillis(3));
        LeaseConfig huge = LeaseConfig.of(Duration.ofDays(365_000_000), Duration.ofSeconds(1),
                Duration.ofDays(365_000_000));
        assertEquals(Long.MAX_VALUE, huge.challengeDelayMillis(Integer.MAX_VALUE));
    }

    @Test
    void grantAndTimingFollowTheDeadline() {
        Lease lease = config.grant(ME, TOKEN, clock.nowMillis());
        assertEquals(new Lease(ME, TOKEN, T0, T0 + 30_000), lease);
        LeaseTiming timing = config.timing(lease);
        assertEquals(lease, timing.lease());
        assertEquals(T0 + 30_000, timing.expiresAtMillis());
        assertTrue(timing.liveAt(T0 + 29_999));
        assertFalse(timing.liveAt(T0 + 30_000), "expired from the deadline on");
        assertEquals(Duration.ofMillis(30_000), timing.remainingAt(T0));
        assertEquals(Duration.ofMillis(1), timing.remainingAt(T0 + 29_999));
        assertEquals(Duration.ZERO, timing.remainingAt(T0 + 30_000));
        assertEquals(Duration.ZERO, timing.remainingAt(T0 + 90_000));
        assertEquals(T0 + 10_000, timing.renewAtMillis());
        assertFalse(timing.renewDueAt(T0 + 9_999));
        assertTrue(timing.renewDueAt(T0 + 10_000));
        assertEquals(T0 + 30_000, timing.challengeAtMillis(0), "rank 0 challenges exactly at the deadline");
        assertEquals(T0 + 40_000, timing.challengeAtMillis(2));
        assertEquals(timing.challengeAtMillis(0), timing.challengeAtMillis(-1));
    }

    @Test
    void theRenewalInstantNeverPassesTheDeadline() {
        Lease shortened = new Lease(ME, TOKEN, T0, T0 + 5_000);
        assertEquals(T0 + 5_000, config.timing(shortened).renewAtMillis());
    }

    @Test
    void arithmeticSaturatesAtTheEndOfTheInstantLine() {
        Lease forever = config.grant(ME, TOKEN, Long.MAX_VALUE - 10);
        assertEquals(Long.MAX_VALUE, forever.deadline());
        LeaseTiming timing = config.timing(forever);
        assertEquals(Long.MAX_VALUE, timing.challengeAtMillis(5));
        assertEquals(Long.MAX_VALUE, timing.renewAtMillis());
        assertTrue(timing.liveAt(Long.MAX_VALUE - 1));
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), config.timing(new Lease(ME, TOKEN, 0, Long.MAX_VALUE))
                .remainingAt(Long.MIN_VALUE));
    }

    @Test
    void theRemainingExtentFromTheEarliestInstantIsExactBeforeItSaturates() {
        // deadline - Long.MIN_VALUE: -1 - MIN is exactly MAX, -5 - MIN is MAX - 4, 0 - MIN saturates at MAX
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), config.timing(new Lease(ME, TOKEN, -10, -1))
                .remainingAt(Long.MIN_VALUE));
        assertEquals(Duration.ofMillis(Long.MAX_VALUE - 4), config.timing(new Lease(ME, TOKEN, -10, -5))
                .remainingAt(Long.MIN_VALUE));
        assertEquals(Duration.ofMillis(Long.MAX_VALUE), config.timing(new Lease(ME, TOKEN, -10, 0))
                .remainingAt(Long.MIN_VALUE));
        assertEquals(Duration.ofMillis(1), config.timing(new Lease(ME, TOKEN, Long.MIN_VALUE, Long.MIN_VALUE + 1))
                .remainingAt(Long.MIN_VALUE));
        assertEquals(Duration.ZERO, config.timing(new Lease(ME, TOKEN, Long.MIN_VALUE, Long.MIN_VALUE))
                .remainingAt(Long.MIN_VALUE));
    }

    @Test
    void timingRejectsNulls() {
        assertEquals("lease", assertThrows(NullPointerException.class, () -> new LeaseTiming(null, config)).getMessage());
        assertEquals("config", assertThrows(NullPointerException.class,
                () -> new LeaseTiming(config.grant(ME, TOKEN, T0), null)).getMessage());
    }

    @Test
    void aTimingNamesItsLeaseAndItsConfigurationWhenPrinted() {
        Lease lease = config.grant(ME, TOKEN, T0);
        String printed = new LeaseTiming(lease, config).toString();
        assertTrue(printed.startsWith("LeaseTiming[" + lease + ", "), printed);
    }
}
