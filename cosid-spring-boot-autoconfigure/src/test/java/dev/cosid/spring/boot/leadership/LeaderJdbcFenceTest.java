package dev.cosid.spring.boot.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.Await;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.sqlite.SQLiteDataSource;

/**
 * The {@code leaderJdbcFence} bean inside Spring's transactions, on SQLite: it refuses outside a transaction and on
 * a member that does not lead, admits the leader's transaction (creating the table on first use), and refuses a
 * leader whose token the table has seen superseded, rolling its writes back.
 */
class LeaderJdbcFenceTest {

    @TempDir
    Path dir;

    private final CoordinationTransport transport = new InMemoryTransport();

    private ApplicationContextRunner member(String name, DataSource dataSource) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CosIdLeadershipMetricsAutoConfiguration.class,
                        CosIdLeadershipAutoConfiguration.class))
                .withBean(CoordinationTransport.class, () -> transport)
                .withBean(DataSource.class, () -> dataSource)
                .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(dataSource))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("cosid.leadership.enabled=true", "cosid.leadership.member=" + name,
                        "cosid.leadership.roles.billing.lease=1500ms", "cosid.leadership.roles.billing.renew=500ms",
                        "cosid.leadership.roles.billing.stagger=200ms", "cosid.leadership.retry=100ms");
    }

    private DataSource sqlite() {
        SQLiteDataSource dataSource = new SQLiteDataSource();
        dataSource.setUrl("jdbc:sqlite:" + dir.resolve("fence.db"));
        return dataSource;
    }

    private static <T> T inTransaction(AssertableApplicationContext context,
                                       org.springframework.transaction.support.TransactionCallback<T> work) {
        return new TransactionTemplate(context.getBean(PlatformTransactionManager.class)).execute(work);
    }

    private static double fenced(AssertableApplicationContext context) {
        return context.getBean(MeterRegistry.class).get("cosid.leadership.fenced").tag("role", "billing")
                .tag("path", "jdbc").counter().count();
    }

    @Test
    void theFenceRefusesOutsideATransactionAndAdmitsTheLeadersTransaction() {
        DataSource dataSource = sqlite();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("create table invoice (token varchar(40))");
        member("a", dataSource).run(a -> {
            LeaderJdbcFence fence = a.getBean(LeaderJdbcFence.class);
            assertEquals(JdbcFence.DEFAULT_TABLE, fence.table());
            IllegalStateException outside = assertThrows(IllegalStateException.class, () -> fence.check("billing"));
            assertThat(outside.getMessage()).startsWith("leaderJdbcFence.check(\"billing\") must run inside a Spring "
                    + "transaction on the data source");

            CosIdLeadership leadership = a.getBean(CosIdLeadership.class);
            Await.until(() -> leadership.leading("billing"), Duration.ofSeconds(10), "a leads billing");
            FencingToken token = leadership.leadership("billing").orElseThrow().token();
            FencingToken admitted = inTransaction(a, status -> {
                FencingToken checked = fence.check("billing");
                jdbc.update("insert into invoice (token) values (?)", checked.toString());
                return checked;
            });
            assertEquals(token, admitted);
            try (Connection connection = dataSource.getConnection()) {
                assertEquals(token, JdbcFence.standard().newest(connection, Role.of("billing")),
                        "the first check created the table and wrote the token");
            }
            assertEquals(1, jdbc.queryForObject("select count(*) from invoice", Integer.class));

            member("b", dataSource).run(b -> {
                Await.until(() -> b.getBean(CosIdLeadership.class).leader("billing").isPresent(),
                        Duration.ofSeconds(10), "b sees the holder");
                FencedException notLeading = assertThrows(FencedException.class, () -> inTransaction(b, status -> {
                    b.getBean(LeaderJdbcFence.class).check("billing");
                    jdbc.update("insert into invoice (token) values ('b')");
                    return null;
                }));
                assertEquals("b does not lead role 'billing' now; the jdbc write is refused", notLeading.getMessage());
                assertEquals(1.0, fenced(b));
            });
            assertEquals(1, jdbc.queryForObject("select count(*) from invoice", Integer.class));
        });
    }

    @Test
    void aTokenTheTableHasSeenSupersededIsRefusedAndItsTransactionRolledBack() {
        DataSource dataSource = sqlite();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("create table invoice (token varchar(40))");
        // the schema is managed here, as a DBA would: the bean creates no table
        member("a", dataSource).withPropertyValues("cosid.leadership.jdbc-fence.create-table=false").run(a -> {
            CosIdLeadership leadership = a.getBean(CosIdLeadership.class);
            Await.until(() -> leadership.leading("billing"), Duration.ofSeconds(10), "a leads billing");
            FencingToken token = leadership.leadership("billing").orElseThrow().token();
            // a successor, unknown to this member still, wrote a newer token first
            try (Connection connection = dataSource.getConnection()) {
                JdbcFence.standard().createTable(connection);
                connection.setAutoCommit(false);
                JdbcFence.standard().check(connection, Role.of("billing"),
                        new FencingToken(token.producerId() + 1, (short) 0));
                connection.commit();
            }
            FencedException refused = assertThrows(FencedException.class, () -> inTransaction(a, status -> {
                jdbc.update("insert into invoice (token) values ('before the check')");
                a.getBean(LeaderJdbcFence.class).check("billing");
                jdbc.update("insert into invoice (token) values ('after the check')");
                return null;
            }));
            assertThat(refused.getMessage()).contains("token " + token + " is older than token "
                    + new FencingToken(token.producerId() + 1, (short) 0));
            assertEquals(0, jdbc.queryForObject("select count(*) from invoice", Integer.class),
                    "the refused transaction rolled back");
            assertEquals(1.0, fenced(a));
        });
    }
}
