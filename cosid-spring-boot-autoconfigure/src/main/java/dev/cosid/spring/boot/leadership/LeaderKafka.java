package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.Role;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The leader's own Kafka records, written inside the role's transactions
 * ({@link KafkaCoordinationTransport#inTransaction}): what one call sends, and the consumer offsets it commits,
 * land together under the role's epoch or not at all, and the brokers refuse them once a successor minted a newer
 * epoch. A {@code read_committed} reader therefore never sees a deposed leader's record after its successor's
 * first, whatever the clocks and pauses did. This is fenced work; anything else the leader does is only stopped in
 * time.
 *
 * <p>A call on an instance that does not lead the role is refused at once with {@link FencedException}, and so is
 * a call whose transaction the brokers fence: nothing of it commits. Transactions of a role run one at a time with
 * its lease renewals, so keep them short.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Scheduled(fixedDelay = 1_000)
 * @LeaderOnly("billing")
 * public void publishInvoices() {
 *     leaderKafka.inTransaction("billing", tx -> {
 *         for (Invoice invoice : invoices.due()) {
 *             tx.send(new ProducerRecord<>("invoices", invoice.key(), invoice.bytes()));
 *         }
 *         return null;
 *     });
 * }
 * }</pre>
 */
public final class LeaderKafka {

    private final CosIdLeadership leadership;
    private final ObjectProvider<KafkaCoordinationTransport> transport;

    LeaderKafka(CosIdLeadership leadership, ObjectProvider<KafkaCoordinationTransport> transport) {
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    /**
     * Runs the leader's code in one transaction of the role's producer.
     *
     * @param role the role's name
     * @param body the code that sends; it may return a value
     * @param <T> what the code returns
     * @return what the code returned, once the transaction has committed
     * @throws FencedException when this instance does not lead the role, or the brokers fenced the transaction: nothing
     *     of it committed
     * @throws dev.cosid.coordination.CoordinationException when the transaction failed otherwise; it was aborted
     * @throws IllegalArgumentException for a role this instance does not campaign for
     * @throws IllegalStateException when the application elects on another transport than Kafka
     */
    public <T> T inTransaction(String role, KafkaCoordinationTransport.TransactionBody<T> body) {
        Objects.requireNonNull(body, "body");
        KafkaCoordinationTransport kafka = transport.getIfAvailable();
        if (kafka == null) {
            throw new IllegalStateException("leaderKafka needs the Kafka transport; this application elects on "
                    + leadership.transportName());
        }
        Leadership held = leadership.requireLeading(role, "kafka");
        try {
            return kafka.inTransaction(held, body);
        } catch (FencedException e) {
            leadership.refused(Role.of(role), "kafka");
            throw e;
        }
    }

    @Override
    public String toString() {
        return "LeaderKafka[" + leadership.transportName() + "]";
    }
}
