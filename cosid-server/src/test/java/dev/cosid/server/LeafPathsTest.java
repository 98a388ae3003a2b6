package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.lease.InMemoryLeaseStore;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Leaf's HTTP paths, answered with bare decimal numbers as Leaf's LeafController answers them. */
class LeafPathsTest {

    private static final String SECRET = "0123456789abcdef0123456789abcdef";

    private CosIdRuntime runtime;
    private CosIdServer server;
    private Http anonymous;
    private Http http;

    @BeforeEach
    void start() {
        runtime = CosIdRuntime.builder().namespace("orders").store(new InMemoryLeaseStore()).ownerKey("leaf").start();
        server = CosIdServer.builder().port(0).names(List.of("default", "order"))
                .token(BearerToken.of(SECRET, "a test")).start(runtime);
        anonymous = new Http(server.uri());
        http = anonymous.withToken(SECRET);
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
    }

    private long issued(String name) {
        return runtime.generators().stream().filter(g -> g.name().equals(name)).mapToLong(g -> g.stats().issued())
                .sum();
    }

    @Test
    void theSnowflakePathAnswersABareDecimalIdOfTheServersSlot() {
        Http.Reply first = http.get("/api/snowflake/get/leaf-segment-test");
        assertEquals(200, first.status(), first.body());
        assertEquals("text/plain; charset=utf-8", first.contentType());
        assertTrue(first.body().matches("[1-9][0-9]{0,18}"), "a bare decimal number: '" + first.body() + "'");
        long id = Long.parseLong(first.body());
        assertEquals(runtime.lease().slot(), IdLayout.MILLISECOND.parse(id).slot());
        long second = Long.parseLong(http.get("/api/snowflake/get/leaf-segment-test").body());
        assertTrue(second > id, second + " after " + id);
        assertEquals(2, issued("default"), "a key that names no id space issues from the first one");
        assertEquals(200, http.get("/api/snowflake/get/order").status());
        assertEquals(1, issued("order"), "a key that names an id space issues from it");
    }

    @Test
    void theLeafPathsKeepTheServersTokenAndMethodRules() {
        Http.Reply missing = anonymous.get("/api/snowflake/get/order");
        assertEquals(401, missing.status());
        assertEquals("unauthorized", missing.json().get("error").asText());
        assertEquals(405, http.send("POST", "/api/snowflake/get/order").status());
        assertEquals("unknown_parameter", http.get("/api/snowflake/get/order?count=2").json().get("error").asText());
        assertEquals(404, http.get("/api/snowflake/get/").status(), "a key is required");
        assertEquals(0, issued("default") + issued("order"), "a refused request issues nothing");
    }
}
