package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.ElectionListener;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.kafka.KafkaCoordinationTransport;
import dev.cosid.spring.boot.CosIdConfigurationException;
import dev.cosid.time.Clock;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Fenced leadership from {@code cosid.leadership.*} properties: with {@code cosid.leadership.enabled=true}, one
 * elector per role ({@link CosIdLeadership}), {@link LeaderOnly} for {@code @Scheduled} jobs, and the fenced paths
 * {@link LeaderKafka} and {@link LeaderJdbcFence}. The Kafka transport applies only where
 * {@code cosid-coordination-kafka} and {@code kafka-clients} are on the class path; an application's own
 * {@link CoordinationTransport} bean replaces it. The properties are bound even while leadership is off, so a
 * misspelt {@code cosid.leadership} key stops the start.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid.leadership.enabled=true
 * cosid.leadership.kafka.bootstrap-servers=kafka-1:9092,kafka-2:9092
 * }</pre>
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration"})
@EnableConfigurationProperties(CosIdLeadershipProperties.class)
public class CosIdLeadershipAutoConfiguration {

    /** The property that switches leadership on. */
    static final String ENABLED = "cosid.leadership.enabled";

    /** The electors, the annotation and the fenced JDBC path, where {@code cosid-coordination} is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.cosid.coordination.Elector")
    @ConditionalOnProperty(name = ENABLED, havingValue = "true")
    static class LeadershipConfiguration {

        @Bean
        static LeaderOnlyBeanPostProcessor leaderOnlyBeanPostProcessor() {
            return new LeaderOnlyBeanPostProcessor();
        }

        @Bean
        @ConditionalOnMissingBean
        CosIdLeadership cosIdLeadership(CosIdLeadershipProperties properties, Environment environment,
                                        ObjectProvider<CoordinationTransport> transports,
                                        ObjectProvider<ElectionListener> listeners, ApplicationEventPublisher events,
                                        LeaderOnlyBeanPostProcessor annotations) {
            LeadershipSettings settings = LeadershipSettings.resolve(properties, environment);
            CoordinationTransport transport = transports.getIfAvailable();
            if (transport == null) {
                throw new CosIdConfigurationException(ENABLED, "true", "leadership needs a cluster to elect on, "
                        + "and cosid-coordination-kafka or kafka-clients is not on the class path",
                        "Add the dependency dev.cosid:cosid-coordination-kafka (it brings kafka-clients) and set "
                        + "cosid.leadership.kafka.bootstrap-servers, or set " + ENABLED + "=false.");
            }
            String name = transport.getClass().getSimpleName();
            if (transport.getClass().getName().equals("dev.cosid.coordination.kafka.KafkaCoordinationTransport")) {
                try {
                    name = "kafka " + LeadershipSettings.bootstrapServers(properties, environment);
                } catch (CosIdConfigurationException unnamed) {
                    // the application's own Kafka transport, made without these properties
                }
            }
            CosIdLeadership leadership = new CosIdLeadership(transport, name, settings, Clock.system(),
                    listeners.orderedStream().toList(), events);
            annotations.announceTo(leadership::addRole);
            return leadership;
        }

        /** The JDBC fence on the application's DataSource, where Spring's JDBC support is present. */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.jdbc.datasource.DataSourceUtils")
        @ConditionalOnBean(DataSource.class)
        static class JdbcFenceConfiguration {

            @Bean
            @ConditionalOnMissingBean
            LeaderJdbcFence leaderJdbcFence(CosIdLeadership leadership, DataSource dataSource,
                                            CosIdLeadershipProperties properties) {
                String table = properties.getJdbcFence().getTable();
                JdbcFence fence;
                try {
                    fence = JdbcFence.onTable(table);
                } catch (IllegalArgumentException e) {
                    throw new CosIdConfigurationException("cosid.leadership.jdbc-fence.table", table, e.getMessage(),
                            "Set cosid.leadership.jdbc-fence.table to letters, digits and underscores, optionally "
                            + "schema.table; cosid_leader_fence is the default.");
                }
                return new LeaderJdbcFence(leadership, dataSource, fence, properties.getJdbcFence().isCreateTable());
            }
        }
    }

    /** The Kafka transport and the leader's Kafka transactions. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"dev.cosid.coordination.Elector",
            "dev.cosid.coordination.kafka.KafkaCoordinationTransport",
            "org.apache.kafka.clients.admin.Admin"})
    @ConditionalOnProperty(name = ENABLED, havingValue = "true")
    static class KafkaConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(CoordinationTransport.class)
        KafkaCoordinationTransport cosIdCoordinationTransport(CosIdLeadershipProperties properties,
                                                              Environment environment) {
            LeadershipSettings settings = LeadershipSettings.resolve(properties, environment);
            String servers = LeadershipSettings.bootstrapServers(properties, environment);
            int replicationFactor = properties.getKafka().getReplicationFactor();
            if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
                throw new CosIdConfigurationException("cosid.leadership.kafka.replication-factor",
                        Integer.toString(replicationFactor), "the replication factor must be 1 to " + Short.MAX_VALUE,
                        "Set cosid.leadership.kafka.replication-factor to 3 in production, 1 on a single broker.");
            }
            Map<String, Object> client = new HashMap<>(properties.getKafka().getProperties());
            client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
            try {
                return KafkaCoordinationTransport.create(client, replicationFactor, settings.longestLease(),
                        settings.timeout());
            } catch (CoordinationException e) {
                for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                    if (cause instanceof InvalidReplicationFactorException) {
                        throw new CosIdConfigurationException("cosid.leadership.kafka.replication-factor",
                                Integer.toString(replicationFactor), e.getMessage(), "Set "
                                + "cosid.leadership.kafka.replication-factor to at most the number of brokers (1 on "
                                + "a single broker; 3 in production), or create the topic "
                                + KafkaCoordinationTransport.TOPIC + " yourself (compacted).", e);
                    }
                }
                throw new CosIdConfigurationException("cosid.leadership.kafka.bootstrap-servers", servers,
                        e.getMessage(), "Check that the Kafka cluster at " + servers + " is reachable from here "
                        + "within cosid.leadership.timeout (" + settings.timeout().toMillis() + " ms), and its "
                        + "client settings (cosid.leadership.kafka.properties.*).", e);
            }
        }

        @Bean
        @ConditionalOnMissingBean
        LeaderKafka leaderKafka(CosIdLeadership leadership, ObjectProvider<KafkaCoordinationTransport> transport) {
            return new LeaderKafka(leadership, transport);
        }
    }

    /** {@code cosid.leadership.enabled=true} without {@code cosid-coordination}: the start stops and says why. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.cosid.coordination.Elector")
    @ConditionalOnProperty(name = ENABLED, havingValue = "true")
    static class MissingConfiguration {

        @Bean
        Object cosIdLeadershipUnavailable() {
            throw new CosIdConfigurationException(ENABLED, "true", "leadership needs "
                    + "dev.cosid:cosid-coordination-kafka (the elector, the Kafka transport and kafka-clients), which is "
                    + "not on the class path",
                    "Add the dependency dev.cosid:cosid-coordination-kafka, or set " + ENABLED + "=false.");
        }
    }
}
