package dev.cosid.spring.boot.leadership;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.Elector;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.lease.Names;
import dev.cosid.spring.boot.CosIdConfigurationException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code cosid.leadership.*} properties checked at the door: every value that the elector, the lease policy
 * or the transport would refuse is refused here, with the key, the value and what to do
 * ({@link CosIdConfigurationException}), before anything reaches the cluster.
 *
 * @param member this instance's member id
 * @param retry the electors' retry interval
 * @param timeout how long one call waits on the cluster
 * @param defaults the policy of a role named only by {@code @LeaderOnly}
 * @param configured the policies of {@code cosid.leadership.roles}, in the order configured
 */
record LeadershipSettings(MemberId member, Duration retry, Duration timeout, RolePolicy defaults,
                          Map<Role, RolePolicy> configured) {

    static final String PREFIX = "cosid.leadership";
    /** What a role name may be: a URL path segment, a meter tag, a property key and a transactional.id as it is. */
    static final String ROLE_RULE = "a role name is 1 to " + Names.MAX_LENGTH
            + " characters of A-Z a-z 0-9 . _ -, other than . and ..";

    /**
     * The timing of one role.
     *
     * @param role the role
     * @param config the lease policy
     * @param revokeMargin how long before the deadline its work stops when renewals fail
     */
    record RolePolicy(Role role, LeaseConfig config, Duration revokeMargin) {
    }

    /** Checks every value and resolves the defaults. */
    static LeadershipSettings resolve(CosIdLeadershipProperties properties, Environment environment) {
        String memberName = properties.getMember() != null ? properties.getMember() : defaultMember(environment);
        MemberId member;
        try {
            member = MemberId.of(memberName);
        } catch (CoordinationException e) {
            throw new CosIdConfigurationException(PREFIX + ".member", memberName, e.getMessage(), "Set "
                    + PREFIX + ".member to 1 to 249 UTF-8 bytes, one name per instance of the application.");
        }
        atLeastOneMilli(PREFIX + ".retry", properties.getRetry());
        atLeastOneMilli(PREFIX + ".timeout", properties.getTimeout());
        if (properties.getTimeout().toMillis() > Integer.MAX_VALUE) {
            throw new CosIdConfigurationException(PREFIX + ".timeout", properties.getTimeout().toString(),
                    "longer than the most a Kafka client waits, " + Integer.MAX_VALUE + " ms",
                    "Set " + PREFIX + ".timeout to a few seconds (10s is the default).");
        }
        RolePolicy defaults = policy(null, PREFIX, properties, new CosIdLeadershipProperties.Role());
        Map<Role, RolePolicy> configured = new LinkedHashMap<>();
        for (Map.Entry<String, CosIdLeadershipProperties.Role> entry : properties.getRoles().entrySet()) {
            Role role = role(PREFIX + ".roles", entry.getKey());
            configured.put(role, policy(role, PREFIX + ".roles." + key(entry.getKey()), properties,
                    entry.getValue() != null ? entry.getValue() : new CosIdLeadershipProperties.Role()));
        }
        return new LeadershipSettings(member, properties.getRetry(), properties.getTimeout(), defaults,
                Collections.unmodifiableMap(configured));
    }

    /** Returns the policy of a role: its own if configured, else the defaults. */
    RolePolicy policyOf(Role role) {
        RolePolicy own = configured.get(role);
        return own != null ? own : new RolePolicy(role, defaults.config(), defaults.revokeMargin());
    }

    /** Returns the longest lease of any configured role or the defaults: Kafka transactions time out no sooner. */
    Duration longestLease() {
        Duration longest = defaults.config().duration();
        for (RolePolicy policy : configured.values()) {
            if (policy.config().duration().compareTo(longest) > 0) {
                longest = policy.config().duration();
            }
        }
        return longest;
    }

    /**
     * Checks a role's name against the starter's rule, which is stricter than {@link Role#of}: the name is a URL
     * path segment of the endpoint and the health, a meter tag and a property key.
     *
     * @param key the key or place that names it, for the message
     * @param name the name
     * @return the role
     */
    static Role role(String key, String name) {
        Optional<String> problem = Names.problem(name);
        if (problem.isPresent()) {
            throw new CosIdConfigurationException(key, name, "role " + problem.get() + "; " + ROLE_RULE,
                    "Rename the role to " + ROLE_RULE.substring("a role name is ".length()) + "; a role with dots goes "
                    + "in brackets, as in " + PREFIX + ".roles.[a.b].lease.");
        }
        return Role.of(name);
    }

    /** Reports whether a name follows the starter's rule for roles. */
    static boolean isRoleName(String name) {
        return Names.isValid(name);
    }

    private static String key(String name) {
        return name.indexOf('.') >= 0 ? "[" + name + "]" : name;
    }

    private static RolePolicy policy(Role role, String prefix, CosIdLeadershipProperties tree,
                                     CosIdLeadershipProperties.Role own) {
        Duration lease = pick(own.getLease(), tree.getLease());
        Duration renew = pick(own.getRenew(), tree.getRenew());
        Duration stagger = pick(own.getStagger(), tree.getStagger());
        Duration margin = pick(own.getRevokeMargin(), tree.getRevokeMargin());
        String leaseKey = (own.getLease() != null ? prefix : PREFIX) + ".lease";
        String renewKey = (own.getRenew() != null ? prefix : PREFIX) + ".renew";
        String staggerKey = (own.getStagger() != null ? prefix : PREFIX) + ".stagger";
        String marginKey = (own.getRevokeMargin() != null ? prefix : PREFIX) + ".revoke-margin";
        String of = role == null ? "" : " of role '" + role + "'";
        atLeastOneMilli(leaseKey, lease);
        atLeastOneMilli(renewKey, renew);
        atLeastOneMilli(staggerKey, stagger);
        if (renew.compareTo(lease) >= 0) {
            throw new CosIdConfigurationException(renewKey, renew.toString(), "the renew interval" + of + " of "
                    + renew.toMillis() + " ms is not shorter than the lease duration of " + lease.toMillis() + " ms ("
                    + leaseKey + ")", "Set " + renewKey + " to a third of the lease or less (10s of a 30s lease is "
                    + "the default), or lengthen " + leaseKey + ".");
        }
        LeaseConfig config = LeaseConfig.of(lease, renew, stagger);
        if (margin == null) {
            return new RolePolicy(role, config, Elector.defaultRevokeMargin(config));
        }
        try {
            Elector.checkRevokeMargin(config, margin);
        } catch (CoordinationException e) {
            throw new CosIdConfigurationException(marginKey, margin.toString(), e.getMessage() + of + " (lease "
                    + lease.toMillis() + " ms, renew " + renew.toMillis() + " ms)", "Set " + marginKey
                    + " to at least the clock skew between the instances and less than lease - renew, or remove it "
                    + "for the default: a tenth of the lease, at most half of lease - renew.");
        }
        return new RolePolicy(role, config, margin);
    }

    private static Duration pick(Duration own, Duration tree) {
        return own != null ? own : tree;
    }

    private static void atLeastOneMilli(String key, Duration value) {
        if (value == null || value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new CosIdConfigurationException(key, value == null ? null : value.toString(),
                    "below the least of 1 ms", "Set " + key + " to a duration such as 10s or 500ms.");
        }
    }

    /**
     * Returns the Kafka bootstrap servers: {@code cosid.leadership.kafka.bootstrap-servers}, else Spring Boot's own
     * {@code spring.kafka.bootstrap-servers} when the application sets it.
     *
     * @throws CosIdConfigurationException when neither is set
     */
    static String bootstrapServers(CosIdLeadershipProperties properties, Environment environment) {
        List<String> servers = new ArrayList<>(properties.getKafka().getBootstrapServers());
        servers.removeIf(server -> server == null || server.isBlank());
        if (servers.isEmpty()) {
            Binder.get(environment).bind("spring.kafka.bootstrap-servers", Bindable.listOf(String.class))
                    .ifBound(servers::addAll);
            servers.removeIf(server -> server == null || server.isBlank());
        }
        if (servers.isEmpty()) {
            throw new CosIdConfigurationException(PREFIX + ".kafka.bootstrap-servers", null, "leadership needs a Kafka "
                    + "cluster, and neither it nor spring.kafka.bootstrap-servers is set",
                    "Set " + PREFIX + ".kafka.bootstrap-servers (or spring.kafka.bootstrap-servers) to the cluster's "
                    + "brokers, host:port[,host:port...].");
        }
        return String.join(",", servers.stream().map(String::trim).toList());
    }

    /**
     * Returns the default member id: the application's name, '@', the pod or host name, ':', and the server port,
     * or the process id when the port is 0 or unset; the same identity as {@code cosid.owner-key}, named.
     */
    static String defaultMember(Environment environment) {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = "localhost";
            }
        }
        Integer port = environment.getProperty("server.port", Integer.class);
        String application = environment.getProperty("spring.application.name", "");
        return (application.isBlank() ? "" : application + "@") + host + ":"
                + (port != null && port > 0 ? port.toString() : Long.toString(ProcessHandle.current().pid()));
    }
}
