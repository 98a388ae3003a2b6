package dev.cosid.spring.boot.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.LeaseConfig;
import dev.cosid.coordination.Role;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import dev.cosid.spring.boot.CosIdConfigurationException;
import dev.cosid.spring.boot.CosIdFailureAnalyzer;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.mock.env.MockEnvironment;

/** The cosid.leadership.* properties, their defaults, and every kind of bad value, through Spring Boot's runner. */
class LeadershipPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CosIdLeadershipAutoConfiguration.class))
            .withBean(CoordinationTransport.class, InMemoryTransport::new);

    private static FailureAnalysis analysis(Throwable failure) {
        FailureAnalysis analysis = new CosIdFailureAnalyzer().analyze(failure);
        assertNotNull(analysis, "analysed: " + failure);
        assertThat(analysis.getAction()).isNotBlank();
        return analysis;
    }

    @Test
    void theTreeGivesEveryRoleItsDefaultsAndARoleChangesOnlyWhatItNames() {
        runner.withPropertyValues("cosid.leadership.enabled=true", "cosid.leadership.member=node-1",
                "cosid.leadership.lease=6s", "cosid.leadership.renew=2s", "cosid.leadership.stagger=1s",
                "cosid.leadership.retry=250ms", "cosid.leadership.timeout=3s",
                "cosid.leadership.roles.billing.lease=9s", "cosid.leadership.roles.billing.revoke-margin=700ms",
                "cosid.leadership.roles.[report.v2].stagger=3s").run(context -> {
                    CosIdLeadership leadership = context.getBean(CosIdLeadership.class);
                    LeadershipSettings settings = leadership.settings();
                    assertEquals("node-1", leadership.member().name());
                    assertEquals(Duration.ofMillis(250), settings.retry());
                    assertEquals(Duration.ofSeconds(3), settings.timeout());
                    assertThat(leadership.roles()).containsExactly(Role.of("billing"), Role.of("report.v2"));
                    LeadershipSettings.RolePolicy billing = settings.policyOf(Role.of("billing"));
                    assertEquals(LeaseConfig.of(Duration.ofSeconds(9), Duration.ofSeconds(2), Duration.ofSeconds(1)),
                            billing.config());
                    assertEquals(Duration.ofMillis(700), billing.revokeMargin());
                    LeadershipSettings.RolePolicy report = settings.policyOf(Role.of("report.v2"));
                    assertEquals(LeaseConfig.of(Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(3)),
                            report.config());
                    assertEquals(Duration.ofMillis(600), report.revokeMargin(), "a tenth of the lease");
                    // a role only an annotation names takes the tree's values
                    LeadershipSettings.RolePolicy other = settings.policyOf(Role.of("other"));
                    assertEquals(LeaseConfig.of(Duration.ofSeconds(6), Duration.ofSeconds(2), Duration.ofSeconds(1)),
                            other.config());
                    assertEquals(Duration.ofSeconds(9), settings.longestLease());
                });
    }

    @Test
    void theDefaultsAreThirtySecondLeasesRenewedEveryTenAndTheMemberIsTheApplicationAtItsHostAndPort()
            throws Exception {
        runner.withPropertyValues("cosid.leadership.enabled=true", "spring.application.name=billing-service",
                "server.port=8443").run(context -> {
                    CosIdLeadership leadership = context.getBean(CosIdLeadership.class);
                    assertEquals(LeaseConfig.DEFAULT, leadership.settings().defaults().config());
                    assertEquals(Duration.ofSeconds(3), leadership.settings().defaults().revokeMargin());
                    assertEquals(Duration.ofSeconds(1), leadership.settings().retry());
                    assertEquals(Duration.ofSeconds(10), leadership.settings().timeout());
                    String host = System.getenv("HOSTNAME") != null && !System.getenv("HOSTNAME").isBlank()
                            ? System.getenv("HOSTNAME") : InetAddress.getLocalHost().getHostName();
                    assertEquals("billing-service@" + host + ":8443", leadership.member().name());
                });
        runner.withPropertyValues("cosid.leadership.enabled=true", "server.port=0").run(context ->
                assertThat(context.getBean(CosIdLeadership.class).member().name())
                        .endsWith(":" + ProcessHandle.current().pid()).doesNotContain("@"));
    }

    @Test
    void aRoleInYamlNeedsOneKeySinceSpringBootDropsAnEmptyMap() throws Exception {
        String yaml = """
                cosid:
                  leadership:
                    enabled: true
                    roles:
                      dropped: {}
                      nightly-report:
                        lease: 30s
                      billing:
                        lease: 60s
                """;
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yml",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        runner.withInitializer(context -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
                .run(context -> assertThat(context.getBean(CosIdLeadership.class).roles())
                        .containsExactly(Role.of("nightly-report"), Role.of("billing")));
    }

    @Test
    void leadershipIsOffUnlessEnabledYetAMisspeltKeyStillStopsTheStart() {
        runner.withPropertyValues("cosid.leadership.roles.billing.lease=9s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(CosIdLeadership.class);
            assertThat(context).doesNotHaveBean(LeaderOnlyBeanPostProcessor.class);
        });
        runner.withPropertyValues("cosid.leadership.enable=true").run(context -> assertEquals(
                "cosid.leadership.enable = 'true': unknown key under cosid.leadership",
                analysis(context.getStartupFailure()).getDescription()));
        runner.withPropertyValues("cosid.leadership.enabled=true", "cosid.leadership.roles.billing.leese=3s")
                .run(context -> {
                    FailureAnalysis analysis = analysis(context.getStartupFailure());
                    assertEquals("cosid.leadership.roles.billing.leese = '3s': unknown key under cosid.leadership",
                            analysis.getDescription());
                    assertThat(analysis.getAction()).contains("roles.NAME.{lease,renew,stagger,revoke-margin}");
                });
    }

    @Test
    void theKafkaBootstrapDefaultsToSpringBootsOwnAndIsRequired() {
        CosIdLeadershipProperties properties = new CosIdLeadershipProperties();
        MockEnvironment environment = new MockEnvironment()
                .withProperty("spring.kafka.bootstrap-servers", "kafka-1:9092, kafka-2:9092");
        assertEquals("kafka-1:9092,kafka-2:9092", LeadershipSettings.bootstrapServers(properties, environment));
        properties.getKafka().getBootstrapServers().add("mine:9092");
        assertEquals("mine:9092", LeadershipSettings.bootstrapServers(properties, environment),
                "cosid.leadership.kafka.bootstrap-servers wins");
        CosIdConfigurationException none = assertThrows(CosIdConfigurationException.class,
                () -> LeadershipSettings.bootstrapServers(new CosIdLeadershipProperties(), new MockEnvironment()));
        assertEquals("cosid.leadership.kafka.bootstrap-servers", none.key());

        // with the Kafka transport on the class path and no transport of the application's own
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdLeadershipAutoConfiguration.class))
                .withPropertyValues("cosid.leadership.enabled=true").run(context -> assertEquals(
                        "cosid.leadership.kafka.bootstrap-servers is not set: leadership needs a Kafka cluster, and "
                        + "neither it nor spring.kafka.bootstrap-servers is set",
                        analysis(context.getStartupFailure()).getDescription()));
    }

    @Test
    void anUnreachableClusterStopsTheStartWithinTheTimeoutNamingTheServers() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdLeadershipAutoConfiguration.class))
                .withPropertyValues("cosid.leadership.enabled=true", "cosid.leadership.timeout=1s",
                        "cosid.leadership.kafka.bootstrap-servers=127.0.0.1:1").run(context -> {
                            FailureAnalysis analysis = analysis(context.getStartupFailure());
                            assertEquals("cosid.leadership.kafka.bootstrap-servers = '127.0.0.1:1': cannot reach "
                                    + "the Kafka cluster at 127.0.0.1:1 within 1000 ms: no broker answered",
                                    analysis.getDescription());
                            assertThat(analysis.getAction()).contains("reachable");
                        });
    }

    @Test
    void leadershipForAnApplicationWithoutIdsSaysToTurnTheIdRuntimeOff() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class,
                        CosIdLeadershipAutoConfiguration.class))
                .withBean(CoordinationTransport.class, InMemoryTransport::new)
                .withPropertyValues("cosid.leadership.enabled=true").run(context -> assertThat(
                        analysis(context.getStartupFailure()).getAction()).contains("set cosid.enabled=false"));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class,
                        CosIdLeadershipAutoConfiguration.class))
                .withBean(CoordinationTransport.class, InMemoryTransport::new)
                .withPropertyValues("cosid.enabled=false", "cosid.leadership.enabled=true").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(CosIdLeadership.class);
                });
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class,
                        CosIdLeadershipAutoConfiguration.class))
                .withBean(CoordinationTransport.class, InMemoryTransport::new)
                .withPropertyValues("cosid.store=memory:", "cosid.leadership.enabled=true",
                        "cosid.leadership.roles.billing.lease=60s").run(context -> {
                            assertThat(context).hasNotFailed(); // the id runtime takes cosid.leadership.* as its own
                            assertThat(context).hasSingleBean(CosIdLeadership.class);
                        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cosid.leadership.renew=30s|cosid.leadership.renew = 'PT30S': the renew interval of 30000 ms is not shorter than the lease duration of 30000 ms (cosid.leadership.lease)",
        "cosid.leadership.roles.billing.lease=10s|cosid.leadership.renew = 'PT10S': the renew interval of role 'billing' of 10000 ms is not shorter than the lease duration of 10000 ms (cosid.leadership.roles.billing.lease)",
        "cosid.leadership.roles.billing.renew=40s|cosid.leadership.roles.billing.renew = 'PT40S': the renew interval of role 'billing' of 40000 ms is not shorter than the lease duration of 30000 ms (cosid.leadership.lease)",
        "cosid.leadership.revoke-margin=20s|cosid.leadership.revoke-margin = 'PT20S': the revoke margin of 20000 ms is not between 1 ms and the lease duration minus the renew interval (20000 ms) (lease 30000 ms, renew 10000 ms)",
        "cosid.leadership.roles.billing.revoke-margin=0s|cosid.leadership.roles.billing.revoke-margin = 'PT0S': the revoke margin of 0 ms is not between 1 ms and the lease duration minus the renew interval (20000 ms) of role 'billing' (lease 30000 ms, renew 10000 ms)",
        "cosid.leadership.stagger=0s|cosid.leadership.stagger = 'PT0S': below the least of 1 ms",
        "cosid.leadership.retry=0s|cosid.leadership.retry = 'PT0S': below the least of 1 ms",
        "cosid.leadership.roles.[bad role].lease=6s|cosid.leadership.roles = 'bad role': role name 'bad role' contains the character U+0020; a role name is 1 to 128 characters of A-Z a-z 0-9 . _ -, other than . and ..",
        "cosid.leadership.member=|cosid.leadership.member = '': member is empty",
        "cosid.leadership.lease=soon|cosid.leadership.lease = 'soon' is not a duration",
        "cosid.leadership.jdbc-fence.table=a;drop|cosid.leadership.jdbc-fence.table = 'a;drop': fence table 'a;drop' is not a name"
    })
    void aBadValueStopsTheStartWithAnAnalysisNamingTheKeyAndTheValue(String property, String description) {
        ApplicationContextRunner configured = property.startsWith("cosid.leadership.jdbc-fence")
                ? runner.withBean(javax.sql.DataSource.class, () -> new org.sqlite.SQLiteDataSource()) : runner;
        configured.withPropertyValues("cosid.leadership.enabled=true", property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(analysis(context.getStartupFailure()).getDescription()).startsWith(description);
        });
    }

    @Test
    void aKafkaReplicationFactorOutsideItsRangeIsRefusedBeforeTheClusterIsAsked() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdLeadershipAutoConfiguration.class))
                .withPropertyValues("cosid.leadership.enabled=true", "cosid.leadership.kafka.replication-factor=0",
                        "cosid.leadership.kafka.bootstrap-servers=127.0.0.1:1").run(context -> assertEquals(
                        "cosid.leadership.kafka.replication-factor = '0': the replication factor must be 1 to 32767",
                        analysis(context.getStartupFailure()).getDescription()));
        assertTrue(LeadershipSettings.isRoleName("report.v2"));
    }
}
