package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/** Connecting fails within the transport's timeout, with one sentence, and bad settings are refused first. */
class UnreachableClusterTest {

    private static final Clock CLOCK = Clock.system();

    @Test
    void aClusterThatDoesNotAnswerFailsCreateWithinTheTimeoutNamingTheAddress() throws IOException {
        String nowhere;
        try (ServerSocket socket = new ServerSocket(0)) {
            nowhere = "localhost:" + socket.getLocalPort();
        }
        long start = CLOCK.monotonicNanos();
        CoordinationException e = assertThrows(CoordinationException.class, () -> KafkaCoordinationTransport.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, nowhere), 1, Duration.ofSeconds(30),
                Duration.ofMillis(1500)));
        long tookMillis = (CLOCK.monotonicNanos() - start) / 1_000_000;
        assertEquals("cannot reach the Kafka cluster at " + nowhere + " within 1500 ms: no broker answered",
                e.getMessage());
        assertTrue(tookMillis >= 1_400 && tookMillis < 1_500 + 5_000, "took " + tookMillis + " ms");
    }

    @Test
    void badSettingsAreRefusedBeforeConnecting() {
        Map<String, Object> local = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        assertEquals("replication factor 0 is not between 1 and 32767", assertThrows(CoordinationException.class,
                () -> KafkaCoordinationTransport.create(local, 0, Duration.ofSeconds(30))).getMessage());
        assertEquals("timeout of 0 ms is not between 1 ms and 2147483647 ms", assertThrows(CoordinationException.class,
                () -> KafkaCoordinationTransport.create(local, 1, Duration.ofSeconds(30), Duration.ZERO)).getMessage());
        assertTrue(assertThrows(CoordinationException.class, () -> KafkaCoordinationTransport.create(Map.of(), 1,
                Duration.ofSeconds(30))).getMessage().startsWith("the client settings name no bootstrap.servers"));
        assertTrue(assertThrows(CoordinationException.class, () -> KafkaCoordinationTransport.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost"), 1, Duration.ofSeconds(30)))
                .getMessage().startsWith("cannot connect to the Kafka cluster at localhost: "));
    }
}
