package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cosid.IdLayout;
import dev.cosid.IdStrings;
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
        server = CosIdServer.builder().port(0).names(List.of("default", "order")).segments(List.of("invoice", "ticket"))
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
    void theSegmentPathAnswersTheNextNumberOfTheKeysCounter() {
        Http.Reply first = http.get("/api/segment/get/invoice");
        assertEquals(200, first.status(), first.body());
        assertEquals("text/plain; charset=utf-8", first.contentType());
        assertEquals("1", first.body(), "a new counter starts at 1, a bare number");
        assertEquals("2", http.get("/api/segment/get/invoice").body());
        assertEquals("1", http.get("/api/segment/get/ticket").body(), "each key its own counter");
        Http.Reply unknown = http.get("/api/segment/get/nope");
        assertEquals(404, unknown.status());
        assertEquals("unknown_segment", unknown.json().get("error").asText());
        assertEquals("segment 'nope' is not served here; served: invoice, ticket",
                unknown.json().get("message").asText());
    }

    @Test
    void v1SegmentsAnswersLikeV1IdsAndListsTheCounters() {
        Http.Reply batch = http.get("/v1/segments/invoice?count=3");
        assertEquals(200, batch.status(), batch.body());
        assertEquals("application/json", batch.contentType());
        assertEquals("{\"name\":\"invoice\",\"ids\":[\"1\",\"2\",\"3\"]}", batch.body());
        assertEquals("{\"name\":\"invoice\",\"ids\":[\"4\"]}", http.send("POST", "/v1/segments/invoice").body());
        assertEquals(IdStrings.toRadix62(5), http.get("/v1/segments/invoice?format=radix62").json().get("ids").get(0)
                .asText(), "radix-62 like /v1/ids");
        assertEquals("count_out_of_range", http.get("/v1/segments/invoice?count=1001").json().get("error").asText());
        assertEquals("unknown_segment", http.get("/v1/segments/nope").json().get("error").asText());
        JsonNode counters = http.get("/v1/segments").json();
        assertEquals("orders", counters.get("namespace").asText());
        assertEquals(2, counters.get("segments").size());
        JsonNode invoice = counters.get("segments").get(0);
        assertEquals("invoice", invoice.get("name").asText());
        assertTrue(invoice.get("lastReserved").asLong() >= 5, invoice.toString());
        assertTrue(invoice.get("served").asBoolean());
    }

    @Test
    void theLeafPathsKeepTheServersTokenAndMethodRules() {
        for (String path : List.of("/api/snowflake/get/order", "/api/segment/get/invoice", "/v1/segments/invoice",
                "/v1/segments")) {
            Http.Reply missing = anonymous.get(path);
            assertEquals(401, missing.status(), path);
            assertEquals("unauthorized", missing.json().get("error").asText());
        }
        assertEquals(405, http.send("POST", "/api/segment/get/invoice").status());
        assertEquals(405, http.send("POST", "/api/snowflake/get/order").status());
        assertEquals("unknown_parameter", http.get("/api/snowflake/get/order?count=2").json().get("error").asText());
        assertEquals(404, http.get("/api/snowflake/get/").status(), "a key is required");
        assertEquals(0, issued("default") + issued("order"), "a refused request issues nothing");
    }
}
