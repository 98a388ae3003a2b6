package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cosid.IdStrings;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class IdsBodyTest {

    @Test
    void writesDecimalIdsOfEveryWidthAsJsonStrings() {
        long[] ids = {0, 7, 10, 282061010092396544L, Long.MAX_VALUE};
        String body = new String(new IdsBody("default").write(ids, false), StandardCharsets.UTF_8);
        assertEquals("{\"name\":\"default\",\"ids\":[\"0\",\"7\",\"10\",\"282061010092396544\",\"9223372036854775807\"]}",
                body);
    }

    @Test
    void writesTheSameDigitsAsLongToStringAtEveryPowerOfTen() {
        byte[] out = new byte[19];
        for (long value = 1, i = 0; i < 19; i++, value = value * 10) {
            for (long probe : new long[] {value - 1, value, value + 1, value * 9 + value - 1}) {
                if (probe < 0) {
                    continue;
                }
                int end = IdsBody.decimal(out, 0, probe);
                assertEquals(Long.toString(probe), new String(out, 0, end, StandardCharsets.US_ASCII));
            }
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(16);
        for (int i = 0; i < 100_000; i++) {
            long probe = random.nextLong(Long.MAX_VALUE);
            int end = IdsBody.decimal(out, 0, probe);
            assertEquals(Long.toString(probe), new String(out, 0, end, StandardCharsets.US_ASCII));
        }
    }

    @Test
    void writesRunsOfConsecutiveIdsAcrossEveryCarry() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(62);
        for (int round = 0; round < 2_000; round++) {
            long[] ids = new long[1 + random.nextInt(120)];
            ids[0] = random.nextBoolean() ? random.nextLong(1_000) : random.nextLong(Long.MAX_VALUE - 1_000_000);
            for (int i = 1; i < ids.length; i++) {
                ids[i] = ids[i - 1] + (random.nextInt(10) == 0 ? 1 + random.nextInt(5_000) : 1);
            }
            StringBuilder expected = new StringBuilder("{\"name\":\"n\",\"ids\":[");
            for (int i = 0; i < ids.length; i++) {
                expected.append(i > 0 ? "," : "").append('"').append(ids[i]).append('"');
            }
            assertEquals(expected.append("]}").toString(),
                    new String(new IdsBody("n").write(ids, false), StandardCharsets.US_ASCII));
        }
        assertEquals("{\"name\":\"n\",\"ids\":[\"8\",\"9\",\"10\",\"11\",\"99\",\"100\",\"101\"]}",
                new String(new IdsBody("n").write(new long[] {8, 9, 10, 11, 99, 100, 101}, false),
                        StandardCharsets.US_ASCII));
    }

    @Test
    void writesRadix62IdsAndEscapesTheName() {
        long[] ids = {0, Long.MAX_VALUE};
        String body = new String(new IdsBody("a\"b").write(ids, true), StandardCharsets.UTF_8);
        assertEquals("{\"name\":\"a\\\"b\",\"ids\":[\"" + IdStrings.toRadix62(0) + "\",\""
                + IdStrings.toRadix62(Long.MAX_VALUE) + "\"]}", body);
    }
}
