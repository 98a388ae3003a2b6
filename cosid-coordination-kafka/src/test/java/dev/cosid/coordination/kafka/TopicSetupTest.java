package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.ServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport sets the topic up: it creates it when missing, and refuses one it must not use. */
class TopicSetupTest {

    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    private Admin admin;

    @BeforeEach
    void connect() {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.server().bootstrapServers()));
    }

    @AfterEach
    void deleteTheTopic() throws Exception {
        try {
            admin.deleteTopics(List.of(KafkaCoordinationTransport.TOPIC)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException absent) {
            // nothing to delete
        }
        Await.until(() -> !topics().contains(KafkaCoordinationTransport.TOPIC), Duration.ofSeconds(30),
                "the topic to be deleted");
        admin.close();
    }

    private Set<String> topics() {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aTopicItJustCreatedIsUsedAtOnceThoughItsMetadataArrivesAMomentLater() throws Exception {
        // each round creates the topic afresh; describing it at once used to meet UnknownTopicOrPartition.
        // -Dcosid.kafka.topicRounds plays more rounds than the test command's
        int rounds = Integer.getInteger("cosid.kafka.topicRounds", 8);
        for (int round = 0; round < rounds; round++) {
            try (KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(
                    BROKER.server().bootstrapServers(), 1)) {
                assertEquals(16, transport.partitions(), "round " + round);
                assertEquals(Set.of(), transport.roles(), "round " + round);
            }
            deleteTheTopic();
            connect();
        }
    }

    @Test
    void aTopicThatIsNotCompactedIsRefusedNamingItsPolicy() throws Exception {
        admin.createTopics(List.of(new NewTopic(KafkaCoordinationTransport.TOPIC, 4, (short) 1)
                .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE))))
                .all().get(30, TimeUnit.SECONDS);
        CoordinationException refused = assertThrows(CoordinationException.class,
                () -> KafkaCoordinationTransport.create(BROKER.server().bootstrapServers(), 1));
        assertTrue(refused.getMessage().startsWith("the topic __coordination_state has cleanup.policy=delete; it must "
                + "be compact"), refused.getMessage());
    }
}
