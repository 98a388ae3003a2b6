package dev.cosid.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.lease.SlotRecord;
import dev.cosid.spring.boot.CosIdAutoConfiguration;
import dev.cosid.spring.boot.CosIdFailureAnalyzer;
import dev.cosid.spring.boot3.app.Boot3Application;
import dev.cosid.testkit.servers.PostgresServer;
import dev.cosid.testkit.servers.ServerExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/** The starter on Spring Boot 3.5 with Hibernate ORM 6 and Jackson 2, against a real PostgreSQL. */
class SpringBoot3Test {

    @RegisterExtension
    static final ServerExtension<PostgresServer> POSTGRES = new ServerExtension<>(PostgresServer::started);

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theStarterServesIdsHealthMetersAndHibernateOnSpringBoot35() throws Exception {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        long last;
        int slot;
        DataSource dataSource;
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(Boot3Application.class).run(
                "--server.port=0", "--spring.datasource.url=" + POSTGRES.server().jdbcUrl(), "--cosid.namespace=boot3",
                "--cosid.store=datasource", "--cosid.owner-key=boot3:1")) {
            String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
            CosIdRuntime runtime = app.getBean(CosIdRuntime.class);
            slot = runtime.lease().slot();
            dataSource = app.getBean(DataSource.class);

            JsonNode issued = JSON.readTree(send(HttpRequest.newBuilder(URI.create(base + "/ids/order"))).body());
            assertTrue(issued.get("id").isTextual(), "Jackson 2 writes the id as a string: " + issued);
            long id = Long.parseLong(issued.get("id").asText());
            assertTrue(id > (1L << 53));
            assertEquals(slot, IdLayout.MILLISECOND.parse(id).slot());

            HttpResponse<String> created = send(HttpRequest.newBuilder(URI.create(base + "/items"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"label\":\"boot3\"}")));
            assertEquals(200, created.statusCode(), created.body());
            long itemId = Long.parseLong(JSON.readTree(created.body()).get("id").asText());
            assertEquals(itemId, new JdbcTemplate(dataSource).queryForObject("select id from item", Long.class),
                    "Hibernate ORM 6 stored the generator's id");
            assertEquals(slot, IdLayout.MILLISECOND.parse(itemId).slot());
            last = Math.max(id, itemId);

            JsonNode health = JSON.readTree(send(HttpRequest.newBuilder(URI.create(base + "/actuator/health"))).body());
            JsonNode cosid = health.get("components").get("cosid");
            assertEquals("UP", cosid.get("status").asText());
            assertEquals(slot, cosid.get("details").get("slot").asInt());
            assertTrue(cosid.get("details").has("clockSkewMillis"));

            JsonNode report = JSON.readTree(send(HttpRequest.newBuilder(URI.create(base + "/actuator/cosid"))).body());
            assertEquals(1, report.get("generators").get("order").get("issued").asLong());
            assertEquals(1, report.get("generators").get("item").get("issued").asLong());

            String scrape = send(HttpRequest.newBuilder(URI.create(base + "/actuator/prometheus"))).body();
            assertThat(scrape).contains("cosid_ids_issued_total{generator=\"order\",namespace=\"boot3\"} 1.0")
                    .contains("cosid_ids_issued_total{generator=\"item\",namespace=\"boot3\"} 1.0");
        }
        long lastMillis = Math.max(IdLayout.MILLISECOND.parse(last).timestampMillis(), 0);
        try (ConfigurableApplicationContext check = new SpringApplicationBuilder(Boot3Application.class).run(
                "--server.port=0", "--spring.datasource.url=" + POSTGRES.server().jdbcUrl(), "--cosid.namespace=other",
                "--cosid.store=datasource", "--spring.jpa.hibernate.ddl-auto=none")) {
            SlotRecord released = JdbcLeaseStore.on(check.getBean(DataSource.class)).read("boot3").bySlot().get(slot);
            assertNull(released.owner(), "the slot was released when the application closed");
            assertTrue(released.nextFloor() >= lastMillis);
        }
    }

    @Test
    void aBadValueStopsTheStartWithTheAnalysisOnSpringBoot35() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class,
                        CosIdBoot3AutoConfiguration.class))
                .withPropertyValues("cosid.store=memory:", "cosid.bits=17").run(context -> assertEquals(
                        "cosid.bits = '17': the bits must be 0 to 16 (2^bits slots)",
                        new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription()));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class,
                        CosIdBoot3AutoConfiguration.class))
                .withPropertyValues("cosid.store=memory:", "cosid.ttl=soon").run(context -> assertThat(
                        new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                        .startsWith("cosid.ttl = 'soon' is not a duration"));
    }
}
