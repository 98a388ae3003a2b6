package dev.cosid.spring.boot.leadership;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code cosid.leadership.*} properties: fenced leadership of named roles, one elector per role, on a
 * Kafka cluster. The timing keys at the top are the defaults of every role; {@code roles.NAME.*} changes
 * them for one role. Where the cluster is lives in its own branch ({@code kafka.*}), so that another place
 * to elect on can sit beside it. An unknown key under {@code cosid.leadership} stops the start.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * cosid:
 *   leadership:
 *     enabled: true
 *     kafka:
 *       bootstrap-servers: kafka-1:9092,kafka-2:9092   # default: spring.kafka.bootstrap-servers
 *     roles:
 *       billing:
 *         lease: 60s
 *         renew: 20s
 * }</pre>
 *
 * <p>A role {@code @LeaderOnly} names needs no key here. A role only the fenced beans use needs one key under
 * {@code roles.NAME} (say, its lease): Spring Boot drops an empty map ({@code billing: {}}) from YAML.
 */
@ConfigurationProperties(prefix = "cosid.leadership", ignoreUnknownFields = false)
public class CosIdLeadershipProperties {

    /** Whether to elect leaders: one elector per role of cosid.leadership.roles and of @LeaderOnly. */
    private boolean enabled = false;

    /**
     * This instance's name in every role's roster, unique among the instances: two instances with one name take
     * the role from each other. Default: spring.application.name, '@', the HOSTNAME environment variable (a
     * Kubernetes pod name) or the host name, ':', and server.port, or the process id when the port is 0 or unset.
     */
    private String member;

    /** How long a lease lives past each renewal; a standby challenges a holder that stopped renewing after it. */
    private Duration lease = Duration.ofSeconds(30);

    /** How often the leader renews its lease; shorter than the lease, a third of it or less. */
    private Duration renew = Duration.ofSeconds(10);

    /** How much later each standby of the next rank challenges, so that one challenger at a time mints an epoch. */
    private Duration stagger = Duration.ofSeconds(5);

    /**
     * How long before its lease's deadline a leader that could not renew stops its work, by its own clock: at least
     * the clock skew between the instances. Default: a tenth of the lease, at most half of lease - renew.
     */
    private Duration revokeMargin;

    /** How long an elector waits before it tries a failed call again, and how often a standby looks at the role. */
    private Duration retry = Duration.ofSeconds(1);

    /** How long one call waits on the cluster; the start fails within it when no broker answers. */
    private Duration timeout = Duration.ofSeconds(10);

    /**
     * Roles by name, each with the timing keys it changes (at least one: YAML drops an empty map); a role @LeaderOnly
     * names needs no entry and has the defaults.
     */
    private final Map<String, Role> roles = new LinkedHashMap<>();

    /** The Kafka cluster whose transaction coordinator mints each role's epoch. */
    private final Kafka kafka = new Kafka();

    /** The fence table of the leaderJdbcFence bean. */
    private final JdbcFence jdbcFence = new JdbcFence();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getMember() {
        return member;
    }

    public void setMember(String member) {
        this.member = member;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getRenew() {
        return renew;
    }

    public void setRenew(Duration renew) {
        this.renew = renew;
    }

    public Duration getStagger() {
        return stagger;
    }

    public void setStagger(Duration stagger) {
        this.stagger = stagger;
    }

    public Duration getRevokeMargin() {
        return revokeMargin;
    }

    public void setRevokeMargin(Duration revokeMargin) {
        this.revokeMargin = revokeMargin;
    }

    public Duration getRetry() {
        return retry;
    }

    public void setRetry(Duration retry) {
        this.retry = retry;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Map<String, Role> getRoles() {
        return roles;
    }

    public Kafka getKafka() {
        return kafka;
    }

    public JdbcFence getJdbcFence() {
        return jdbcFence;
    }

    /**
     * {@code cosid.leadership.roles.NAME.*}: one role's timing; a key left out takes the value of the same key
     * under {@code cosid.leadership}.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.leadership.roles.billing.lease: 60s
     * cosid.leadership.roles.billing.renew: 20s
     * }</pre>
     */
    public static class Role {

        /** The role's lease duration. */
        private Duration lease;

        /** The role's renew interval. */
        private Duration renew;

        /** The role's challenge stagger. */
        private Duration stagger;

        /** The role's revoke margin. */
        private Duration revokeMargin;

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public Duration getRenew() {
            return renew;
        }

        public void setRenew(Duration renew) {
            this.renew = renew;
        }

        public Duration getStagger() {
            return stagger;
        }

        public void setStagger(Duration stagger) {
            this.stagger = stagger;
        }

        public Duration getRevokeMargin() {
            return revokeMargin;
        }

        public void setRevokeMargin(Duration revokeMargin) {
            this.revokeMargin = revokeMargin;
        }
    }

    /**
     * {@code cosid.leadership.kafka.*}: the Kafka cluster to elect on.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.leadership.kafka.bootstrap-servers: kafka-1:9092,kafka-2:9092
     * cosid.leadership.kafka.properties.security.protocol: SASL_SSL
     * }</pre>
     */
    public static class Kafka {

        /** The cluster's brokers, host:port; default spring.kafka.bootstrap-servers when that is set. */
        private List<String> bootstrapServers = new ArrayList<>();

        /** The replication factor of __coordination_state when this application creates it; 3 in production. */
        private int replicationFactor = 3;

        /** More Kafka client settings for the coordination clients, such as security.protocol and sasl.*. */
        private final Map<String, String> properties = new LinkedHashMap<>();

        public List<String> getBootstrapServers() {
            return bootstrapServers;
        }

        public void setBootstrapServers(List<String> bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        public int getReplicationFactor() {
            return replicationFactor;
        }

        public void setReplicationFactor(int replicationFactor) {
            this.replicationFactor = replicationFactor;
        }

        public Map<String, String> getProperties() {
            return properties;
        }
    }

    /**
     * {@code cosid.leadership.jdbc-fence.*}: the fence table of the {@code leaderJdbcFence} bean.
     *
     * <h2>Example</h2>
     * <pre>{@code
     * cosid.leadership.jdbc-fence.table: billing.leader_fence
     * cosid.leadership.jdbc-fence.create-table: false   # the schema is managed elsewhere
     * }</pre>
     */
    public static class JdbcFence {

        /** The fence table's name, optionally schema.table. */
        private String table = "cosid_leader_fence";

        /** Whether the first check creates the table if it does not exist (in a connection of its own). */
        private boolean createTable = true;

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }
}
