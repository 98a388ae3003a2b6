package dev.cosid.coordination.kafka;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.testkit.CoordinationTransportContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract against a real KRaft broker started by the test. */
class KafkaTransportContractTest extends CoordinationTransportContract {

    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @Override
    protected CoordinationTransport createTransport() {
        return KafkaCoordinationTransport.create(broker.bootstrapServers(), 1);
    }
}
