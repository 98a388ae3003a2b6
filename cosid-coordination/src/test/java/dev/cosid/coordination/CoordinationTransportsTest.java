package dev.cosid.coordination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The entry point without any store module on the class path: only {@code memory:} opens. */
class CoordinationTransportsTest {

    @Test
    void memoryOpensAnInMemoryTransport() {
        try (CoordinationTransport transport = CoordinationTransports.open("memory:")) {
            assertInstanceOf(InMemoryTransport.class, transport);
        }
    }

    @Test
    void aStoreUrlWhoseModuleIsMissingNamesTheModuleAndNoPassword() {
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open("jdbc:postgresql://cosid:s3cret@db:5432/app"));
        assertEquals("store URL 'jdbc:postgresql://cosid:***@db:5432/app' needs the module dev.cosid:cosid-jdbc, "
                + "which is not on the class path: add it beside dev.cosid:cosid-coordination", missing.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoordinationTransports.open("etcd://e1:2379"))
                .getMessage().contains("dev.cosid:cosid-etcd"));
    }

    @Test
    void anUnknownOrEmptyUrlIsRefusedInOneLine() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open("mongodb://u:s3cret@h/db"));
        assertFalse(unknown.getMessage().contains("s3cret"), unknown.getMessage());
        assertTrue(unknown.getMessage().startsWith("unknown store URL 'mongodb:...'; supported: memory:"),
                unknown.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoordinationTransports.open("kafka://b:9092"))
                .getMessage().contains("KafkaCoordinationTransport.create"));
        assertEquals("store URL is empty", assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open(" ")).getMessage());
    }
}
