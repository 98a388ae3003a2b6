package dev.cosid.coordination.kafka;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a real KRaft broker started by the test. */
class KafkaTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    @Override
    protected CoordinationTransport createTransport() {
        return KafkaCoordinationTransport.create(BROKER.server().bootstrapServers(), 1);
    }

    /**
     * Each round mints up to three epochs and reads the partition a few times: 50 rounds take about 30 s.
     * {@code -Dcosid.kafka.challengeRounds=200} plays more in one run.
     */
    @Override
    protected int simultaneousChallengeRounds() {
        return Integer.getInteger("cosid.kafka.challengeRounds", 25);
    }
}
