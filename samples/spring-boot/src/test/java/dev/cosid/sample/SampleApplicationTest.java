package dev.cosid.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.Names;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The sample serves the generators of cosid.generators and no other: a request never creates one. */
class SampleApplicationTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ConfigurableApplicationContext context;
    private String base;

    @BeforeEach
    void start() {
        context = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0", "--cosid.store=memory:",
                "--management.server.port=-1", "--logging.level.root=WARN", "--spring.main.banner-mode=off");
        base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    @AfterEach
    void stop() {
        context.close();
    }

    private HttpResponse<String> get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<String> generatorNames() {
        return context.getBean(CosIdRuntime.class).generators().stream().map(SnowflakeId::name).sorted().toList();
    }

    @Test
    void aConfiguredGeneratorIssuesIds() {
        HttpResponse<String> order = get("/ids/order");
        assertEquals(200, order.statusCode(), order.body());
        assertTrue(order.body().startsWith("{\"generator\":\"order\",\"id\":\""), order.body());
        assertEquals(200, get("/ids/web").statusCode());
    }

    @Test
    void anyOtherNameAnswers404AndCreatesNoGenerator() {
        List<String> before = generatorNames();
        HttpResponse<String> unknown = get("/ids/nope");
        assertEquals(404, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("\"error\":\"unknown_generator\""), unknown.body());
        assertTrue(unknown.body().contains("\"message\":\"generator 'nope' is not served here; served: order, web\""),
                unknown.body());
        HttpResponse<String> bad = get("/ids/a%20b");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("\"error\":\"bad_name\""), bad.body());
        String rule = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Names.require("a b")).getMessage();
        assertTrue(bad.body().contains(rule), bad.body());
        assertEquals(before, generatorNames(), "no generator was created");
        assertTrue(!generatorNames().contains("nope"), generatorNames().toString());
    }
}
