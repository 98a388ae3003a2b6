package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cosid.coordination.CoordinationException;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.junit.jupiter.api.Test;

/** Each request to one broker is bounded well inside the lease, so a silent broker costs a retry, not the role. */
class RequestBoundsTest {

    private static final Map<String, Object> BOOTSTRAP = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
            "localhost:9092");

    @Test
    void boundsARequestByATenthOfTheLeaseAndConnectionSetupByHalfOfThat() {
        Map<String, Object> bounded = KafkaCoordinationTransport.withRequestBounds(BOOTSTRAP, Duration.ofSeconds(30),
                Duration.ofSeconds(30));
        assertEquals(3000, bounded.get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG));
        assertEquals(1500L, bounded.get(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG));
        assertEquals(3000L, bounded.get(CommonClientConfigs.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG));
    }

    @Test
    void keepsAShorterRequestTimeoutTheSettingsAskFor() {
        Map<String, Object> bounded = KafkaCoordinationTransport.withRequestBounds(Map.of(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092",
                CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "2000"), Duration.ofSeconds(30), Duration.ofSeconds(30));
        assertEquals(2000, bounded.get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG));
    }

    @Test
    void neverBoundsARequestBelowOneSecondNorAboveTheCallTimeout() {
        assertEquals(1000, KafkaCoordinationTransport.withRequestBounds(BOOTSTRAP, Duration.ofSeconds(2),
                Duration.ofSeconds(30)).get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG));
        assertEquals(500, KafkaCoordinationTransport.withRequestBounds(BOOTSTRAP, Duration.ofSeconds(30),
                Duration.ofMillis(500)).get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG));
    }

    @Test
    void refusesARequestTimeoutThatIsNoNumber() {
        assertThrows(CoordinationException.class, () -> KafkaCoordinationTransport.withRequestBounds(Map.of(
                CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "soon"), Duration.ofSeconds(30),
                Duration.ofSeconds(30)));
    }
}
