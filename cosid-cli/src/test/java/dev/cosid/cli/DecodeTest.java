package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** ./cosid decode with CosId's layouts, the legacy safe-JS epoch among them, and a friendly zone. */
class DecodeTest {

    /** An id CosId 2.13.3's SafeJavaScriptSnowflakeId.ofMillisecond issued on 2026-12-02. */
    private static final String COSID_SAFE_JS_ID = "7350938026543617";

    @Test
    void aCosIdSafeJavaScriptMillisecondIdDecodesToItsDayOnlyInTheLegacyEpochLayout() {
        Cli legacy = Cli.run("decode", "--layout", "SAFE_JS_MILLISECOND_LEGACY_EPOCH", COSID_SAFE_JS_ID);
        assertEquals(0, legacy.status(), legacy.err());
        assertTrue(legacy.out().startsWith(COSID_SAFE_JS_ID + " time=2026-12-02T"), legacy.out());
        Cli fixed = Cli.run("decode", "--layout", "SAFE_JS_MILLISECOND", COSID_SAFE_JS_ID);
        assertTrue(fixed.out().startsWith(COSID_SAFE_JS_ID + " time=2076-11-06T"), fixed.out());
    }

    @Test
    void theLastLineGivesWhenTheLayoutRunsOutAndTheDaysLeft() {
        assertEquals("layout=MILLISECOND runsOutAt=2089-08-30T07:47:35.552Z runwayDays=22914",
                DecodeCommand.runway(dev.cosid.IdLayout.MILLISECOND, java.time.Instant.parse("2026-12-04T12:00:00Z")
                        .toEpochMilli()));
        assertEquals("layout=SAFE_JS_MILLISECOND_LEGACY_EPOCH runsOutAt=2039-09-25T21:54:18.752Z runwayDays=-1",
                DecodeCommand.runway(dev.cosid.IdLayout.SAFE_JS_MILLISECOND_LEGACY_EPOCH,
                        java.time.Instant.parse("2039-09-26T00:00:00Z").toEpochMilli()), "past the end: negative");
        Cli result = Cli.run("decode", "--layout", "SAFE_JS_MILLISECOND_LEGACY_EPOCH", COSID_SAFE_JS_ID);
        assertTrue(result.out().lines().toList().get(1).startsWith(
                "layout=SAFE_JS_MILLISECOND_LEGACY_EPOCH runsOutAt=2039-09-25T21:54:18.752Z runwayDays="), result.out());
    }

    @Test
    void theFriendlyFormIsWrittenInTheGivenZone() {
        long id = dev.cosid.IdLayout.SECOND.compose(dev.cosid.IdLayout.SECOND.unitOf(
                java.time.Instant.parse("2026-12-02T19:30:05Z").toEpochMilli()), 5, 0);
        Cli utc = Cli.run("decode", "--layout", "SECOND", String.valueOf(id));
        String runway = "layout=SECOND runsOutAt=2088-01-11T19:14:08Z runwayDays=\\d+\n";
        assertTrue(utc.out().matches(id + " time=2026-12-02T19:30:05Z slot=5 sequence=0 friendly=20261202193005-5-0\n"
                + runway), utc.out());
        Cli shanghai = Cli.run("decode", "--layout", "SECOND", "--zone", "Asia/Shanghai", String.valueOf(id));
        assertTrue(shanghai.out().matches(id + " time=2026-12-02T19:30:05Z slot=5 sequence=0 "
                + "friendly=20261203033005-5-0\n" + runway), shanghai.out());
        Cli bad = Cli.run("decode", "--zone", "Mars/Olympus", "1");
        assertEquals(2, bad.status());
        assertEquals("", bad.out());
        assertEquals(1, bad.err().strip().lines().count(), bad.err());
        assertTrue(bad.err().contains("--zone 'Mars/Olympus' is not a time zone"), bad.err());
    }
}
