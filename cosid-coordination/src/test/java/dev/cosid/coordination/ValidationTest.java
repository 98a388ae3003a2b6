package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Spec section 2: every failure of the module is a CoordinationException; a null is a NullPointerException (section 3). */
class ValidationTest {

    private static void refused(String fragment, Executable bad) {
        CoordinationException e = assertThrows(CoordinationException.class, bad);
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void everyInvalidNameTokenConfigAndKeyIsRefusedWithACoordinationExceptionNamingTheValue() {
        refused("role is empty", () -> Role.of(""));
        refused("member 'ééé", () -> MemberId.of("é".repeat(125)));
        refused("250 UTF-8 bytes", () -> MemberId.of("é".repeat(125)));
        refused("not -2:0", () -> FencingToken.of(-2, (short) 0));
        refused("not 5:-1", () -> new FencingToken(5, (short) -1));
        refused("'12' is not producerId:epoch", () -> FencingToken.parse("12"));
        refused("'1:x' is not producerId:epoch", () -> FencingToken.parse("1:x"));
        refused("'1:40000' is not producerId:epoch", () -> FencingToken.parse("1:40000"));
        refused("renew interval of 30000 ms is not shorter than the lease duration of 30000 ms",
                () -> LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(5)));
        refused("challengeStagger of -1000.0 ms", () -> LeaseConfig.of(Duration.ofSeconds(3), Duration.ofSeconds(1),
                Duration.ofSeconds(-1)));
        refused("partitions 0 is less than 1", () -> RolePartitioner.partitionFor(Role.of("controller"), 0));
        refused("a registration key names a member",
                () -> new CoordinationKey(RecordKind.REGISTRATION, Role.of("r"), null));
        refused("a lease key names no member",
                () -> new CoordinationKey(RecordKind.LEASE, Role.of("r"), MemberId.of("m")));
    }

    @Test
    void aNullArgumentIsANullPointerExceptionNamingIt() {
        assertEquals("role is null", assertThrows(NullPointerException.class, () -> Role.of(null)).getMessage());
        assertEquals("member is null", assertThrows(NullPointerException.class, () -> MemberId.of(null)).getMessage());
        assertEquals("text", assertThrows(NullPointerException.class, () -> FencingToken.parse(null)).getMessage());
        assertEquals("renewInterval", assertThrows(NullPointerException.class,
                () -> LeaseConfig.of(Duration.ofSeconds(3), null, Duration.ofSeconds(1))).getMessage());
    }
}
