package dev.cosid.coordination.kafka;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** A real single-node KRaft Kafka (combined broker and controller) in this JVM, from Kafka's test kit. */
public final class KafkaBroker implements AutoCloseable {

    private final KafkaClusterTestKit cluster;

    private KafkaBroker(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    public static KafkaBroker start() throws Exception {
        KafkaClusterTestKit cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true)
                .setNumBrokerNodes(1)
                .setNumControllerNodes(1)
                .build())
                .setConfigProp("offsets.topic.replication.factor", "1")
                .setConfigProp("transaction.state.log.replication.factor", "1")
                .setConfigProp("transaction.state.log.min.isr", "1")
                .setConfigProp("transaction.state.log.num.partitions", "4")
                .build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            return new KafkaBroker(cluster);
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
