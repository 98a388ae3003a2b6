package dev.cosid.coordination.kafka;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationClient;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.Leadership;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A leader's transaction and the elector giving the same leadership back, at once, never deadlock. They did:
 * {@code inTransaction} held the transport's lock while it checked the leadership (its lock), and
 * {@code Leadership.close()} held the leadership's lock while it cleared the lease (the transport's lock). A
 * leader worker of {@code KafkaLeaderFaultTest} stopped campaigning for good, its elector's thread waiting on its
 * own writer, and the role went without a leader.
 */
class TransactionLockOrderTest {

    private static final LeaseConfig CONFIG = LeaseConfig.of(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(5));
    @RegisterExtension
    static final ServerExtension<KafkaBroker> BROKER = new ServerExtension<>(KafkaBroker::start);

    @Test
    void aTransactionAndALeadershipGivenBackAtOnceNeverDeadlock() throws Exception {
        Role role = Role.of("lock-order-" + UUID.randomUUID().toString().substring(0, 8));
        KafkaCoordinationTransport transport = KafkaCoordinationTransport.create(BROKER.server().bootstrapServers(),
                1);
        CoordinationClient client = new CoordinationClient(transport, CONFIG, new ManualClock(1_800_000_000_000L));
        Leadership leadership = client.tryAcquire(role, MemberId.of("a")).orElseThrow();
        CountDownLatch held = new CountDownLatch(1);
        AtomicReference<Throwable> written = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                held.await();
                transport.inTransaction(leadership, tx -> null);
            } catch (Throwable e) {
                written.set(e);
            }
        }, "writer");
        Thread elector = new Thread(() -> {
            // as Leadership.close() holds the leadership's lock while it clears the lease through the transport
            synchronized (leadership) {
                held.countDown();
                Await.until(() -> !writer.isAlive() || writer.getState() == Thread.State.BLOCKED
                                && java.util.Arrays.stream(writer.getStackTrace())
                                        .anyMatch(frame -> frame.getMethodName().equals("requireLive")),
                        Duration.ofSeconds(20), "the writer waiting on the leadership in its check");
                leadership.close();
            }
        }, "elector");
        writer.setDaemon(true);
        elector.setDaemon(true);
        elector.start();
        writer.start();
        elector.join(20_000);
        writer.join(20_000);
        boolean deadlocked = elector.isAlive() || writer.isAlive();
        if (!deadlocked) {
            transport.close(); // a deadlocked transport would not close: its lock is held for good
        }
        assertFalse(deadlocked, "the writer and the elector deadlocked on the transport's and the leadership's "
                + "locks");
        assertTrue(written.get() instanceof FencedException, "the transaction was refused once the leadership was "
                + "given back: " + written.get());
    }
}
