package dev.cosid.spring.boot3.leader;

import dev.cosid.coordination.FencingToken;
import dev.cosid.spring.boot.leadership.CosIdLeadership;
import dev.cosid.spring.boot.leadership.LeaderKafka;
import dev.cosid.spring.boot.leadership.LeaderOnly;
import dev.cosid.time.Clock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * On Spring Boot 3.5: a scheduled job that must run on one instance at a time, leader-only, writing its record
 * through the role's Kafka transactions. Every run is recorded with its instance, token and extent.
 */
@SpringBootApplication(excludeName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.jpa.JpaRepositoriesAutoConfiguration"})
@EnableScheduling
public class Boot3LeaderApplication {

    /** The runs of both instances in this JVM, in the order they ended. */
    public static final List<Run> RUNS = Collections.synchronizedList(new ArrayList<>());

    /**
     * One run of the job.
     *
     * @param member the instance
     * @param token the leadership's token
     * @param startMillis when it started, on the wall clock
     * @param startNanos when it started, on the monotonic clock
     * @param endNanos when it ended
     */
    public record Run(String member, FencingToken token, long startMillis, long startNanos, long endNanos) {
    }

    /** The job. */
    @Component
    public static class Ticker {
        private static final Clock CLOCK = Clock.system();
        private final LeaderKafka kafka;
        private final CosIdLeadership leadership;
        private final String topic;

        public Ticker(LeaderKafka kafka, CosIdLeadership leadership, @Value("${ticker.topic}") String topic) {
            this.kafka = kafka;
            this.leadership = leadership;
            this.topic = topic;
        }

        @Scheduled(fixedDelay = 100)
        @LeaderOnly("ticker")
        public void tick() {
            long startMillis = CLOCK.nowMillis();
            long start = CLOCK.monotonicNanos();
            FencingToken token = CosIdLeadership.current().token();
            String member = leadership.member().name();
            try {
                kafka.inTransaction("ticker", tx -> tx.send(new ProducerRecord<>(topic, null,
                        (member + " " + token).getBytes(StandardCharsets.UTF_8))));
            } finally {
                RUNS.add(new Run(member, token, startMillis, start, CLOCK.monotonicNanos()));
            }
        }
    }
}
