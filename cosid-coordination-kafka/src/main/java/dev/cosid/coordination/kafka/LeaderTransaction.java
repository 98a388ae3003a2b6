package dev.cosid.coordination.kafka;

import dev.cosid.coordination.FencingToken;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One open transaction of a role's producer, handed to the leader's code by
 * {@link KafkaCoordinationTransport#inTransaction}: what it sends commits together, under the role's epoch,
 * or not at all. The brokers refuse every send of a deposed leader, whose epoch a successor superseded, so a
 * {@code read_committed} reader never sees one of its records after the successor's first.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * transport.inTransaction(leadership, tx -> {
 *     tx.send(new ProducerRecord<>("invoices", key, value));
 *     tx.sendOffsets(consumer.position(...), consumer.groupMetadata()); // consume-transform-produce
 *     return null;
 * });
 * }</pre>
 */
public interface LeaderTransaction {

    /** Returns the token of the leadership this transaction writes under. */
    FencingToken token();

    /**
     * Sends a record inside the transaction.
     *
     * @param record the record, with raw key and value bytes
     * @return the send's result; the record is visible to {@code read_committed} readers once the transaction commits
     */
    Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record);

    /**
     * Serializes and sends a record inside the transaction.
     *
     * @param record the record
     * @param keySerializer the key's serializer
     * @param valueSerializer the value's serializer
     * @param <K> the key type
     * @param <V> the value type
     * @return the send's result
     */
    <K, V> Future<RecordMetadata> send(ProducerRecord<K, V> record, Serializer<K> keySerializer,
                                       Serializer<V> valueSerializer);

    /**
     * Commits a consumer group's offsets with the transaction, for consume-transform-produce: the offsets count
     * only if the records sent with them do.
     *
     * @param offsets the next offsets to consume, by partition
     * @param group the consumer's group metadata ({@code consumer.groupMetadata()})
     */
    void sendOffsets(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group);
}
