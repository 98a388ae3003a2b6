package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The codec's limits, each one the last value it takes: a token of zero, a name of the most bytes allowed. */
class CodecEdgesTest {

    @Test
    void aLeaseWhoseTokenIsZeroRoundTrips() {
        Lease first = new Lease(MemberId.of("node-1"), FencingToken.of(0, (short) 0), 1_800_000_000_000L,
                1_800_000_030_000L);
        assertEquals(Optional.of(first),
                CoordinationCodec.decodeValue(RecordKind.LEASE, CoordinationCodec.encodeValue(first)));
    }

    @Test
    void aMemberNameOfTheMostBytesAllowedRoundTrips() {
        MemberId longest = MemberId.of("n".repeat(Names.MAX_BYTES));
        Registration registration = new Registration(longest, 1_800_000_000_000L);
        assertEquals(Optional.of(registration), CoordinationCodec.decodeValue(RecordKind.REGISTRATION,
                CoordinationCodec.encodeValue(registration)));
    }
}
