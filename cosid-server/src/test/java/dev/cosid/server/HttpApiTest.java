package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.IdStrings;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.SlotLease;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every endpoint, status code and error body, through the JDK's HTTP client against a running server. */
class HttpApiTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private CosIdRuntime runtime;
    private CosIdServer server;
    private Http http;

    @BeforeEach
    void start() {
        runtime = CosIdRuntime.builder().namespace("orders").store(store).ownerKey("api-test").start();
        server = CosIdServer.builder().port(0).names(List.of("default", "order")).start(runtime);
        http = new Http(server.uri());
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
    }

    private long issued() {
        return runtime.generators().stream().mapToLong(g -> g.stats().issued()).sum();
    }

    private static List<Long> ids(JsonNode body) {
        List<Long> ids = new ArrayList<>();
        body.get("ids").forEach(id -> ids.add(Long.parseLong(id.asText())));
        return ids;
    }

    @Test
    void issuesOneDecimalIdAsAStringByDefault() {
        Http.Reply reply = http.get("/v1/ids");
        assertEquals(200, reply.status());
        assertEquals("application/json", reply.contentType());
        assertEquals("no-store", reply.header("Cache-Control").orElseThrow());
        JsonNode body = reply.json();
        assertEquals("default", body.get("name").asText());
        assertEquals(1, body.get("ids").size());
        assertTrue(body.get("ids").get(0).isTextual(), "ids are strings, so JavaScript keeps every digit");
        long id = Long.parseLong(body.get("ids").get(0).asText());
        assertEquals(runtime.lease().slot(), IdLayout.MILLISECOND.parse(id).slot());
        assertEquals(1, issued());
    }

    @Test
    void issuesUpToTheLimitInOneRequestInIncreasingOrder() {
        List<Long> ids = ids(http.get("/v1/ids?count=" + CosIdServer.MAX_COUNT).json());
        assertEquals(CosIdServer.MAX_COUNT, ids.size());
        for (int i = 1; i < ids.size(); i++) {
            assertTrue(ids.get(i) > ids.get(i - 1), "ids increase");
        }
        assertEquals(CosIdServer.MAX_COUNT, issued());
    }

    @Test
    void issuesRadix62StringsOnRequest() {
        JsonNode body = http.get("/v1/ids?count=5&format=radix62").json();
        List<Long> ids = new ArrayList<>();
        body.get("ids").forEach(text -> {
            assertEquals(IdStrings.RADIX62_WIDTH, text.asText().length());
            ids.add(IdStrings.parseRadix62(text.asText()));
        });
        assertEquals(5, ids.size());
        assertTrue(ids.get(4) > ids.get(0));
        assertEquals(runtime.lease().slot(), IdLayout.MILLISECOND.parse(ids.get(0)).slot());
    }

    @Test
    void issuesFromANamedIdSpaceByGetAndByPost() {
        JsonNode got = http.get("/v1/ids/order?count=2").json();
        assertEquals("order", got.get("name").asText());
        Http.Reply posted = http.send("POST", "/v1/ids/order?count=3");
        assertEquals(200, posted.status());
        assertEquals(3, posted.json().get("ids").size());
        SnowflakeId order = runtime.snowflake("order");
        assertEquals(5, order.stats().issued());
    }

    @Test
    void decodesADecimalAndARadix62Id() {
        long id = ids(http.get("/v1/ids").json()).get(0);
        IdParts parts = IdLayout.MILLISECOND.parse(id);
        for (String path : List.of("/v1/decode/" + id, "/v1/decode/" + IdStrings.toRadix62(id) + "?format=radix62")) {
            Http.Reply reply = http.get(path);
            assertEquals(200, reply.status(), reply.body());
            JsonNode body = reply.json();
            assertEquals(Long.toString(id), body.get("id").asText());
            assertEquals(IdStrings.toRadix62(id), body.get("radix62").asText());
            assertEquals(parts.timestampMillis(), body.get("timestampMillis").asLong());
            assertEquals(parts.slot(), body.get("slot").asInt());
            assertEquals(parts.sequence(), body.get("sequence").asLong());
            assertEquals("MILLISECOND", body.get("layout").asText());
            assertEquals(IdLayout.MILLISECOND.friendly(id), body.get("friendly").asText());
            assertEquals(java.time.Instant.ofEpochMilli(parts.timestampMillis()).toString(), body.get("time").asText());
        }
        JsonNode seconds = http.get("/v1/decode/" + id + "?layout=SECOND").json();
        assertEquals("SECOND", seconds.get("layout").asText());
        assertEquals(IdLayout.SECOND.parse(id).slot(), seconds.get("slot").asInt());
    }

    @Test
    void listsTheSlotTableWithEveryHolderAndItsExpiry() {
        try (CosIdRuntime other = CosIdRuntime.builder().namespace("orders").store(store).ownerKey("other").start()) {
            Http.Reply reply = http.get("/v1/slots");
            assertEquals(200, reply.status(), reply.body());
            JsonNode body = reply.json();
            assertEquals("orders", body.get("namespace").asText());
            assertEquals(1024, body.get("slotLimit").asInt());
            assertEquals(runtime.lease().slot(), body.get("selfSlot").asInt());
            JsonNode self = null;
            JsonNode theirs = null;
            for (JsonNode slot : body.get("slots")) {
                if (slot.get("slot").asInt() == runtime.lease().slot()) {
                    self = slot;
                }
                if (slot.get("slot").asInt() == other.lease().slot()) {
                    theirs = slot;
                }
            }
            assertNotNull(self);
            assertNotNull(theirs);
            assertTrue(self.get("self").asBoolean());
            assertEquals("api-test", self.get("ownerKey").asText());
            assertEquals(runtime.owner().incarnation().toString(), self.get("incarnation").asText());
            assertEquals("held", self.get("state").asText());
            assertEquals(runtime.lease().fence(), self.get("fence").asLong());
            assertFalse(theirs.get("self").asBoolean());
            assertEquals("other", theirs.get("ownerKey").asText());
            assertEquals(other.lease().expiresAt(), theirs.get("expiresAt").asLong());
            assertEquals(theirs.get("expiresAt").asLong() - body.get("storeNow").asLong(),
                    theirs.get("expiresInMillis").asLong());
        }
    }

    @Test
    void reportsTheStatusTheRuntimeReports() {
        http.get("/v1/ids?count=7");
        JsonNode body = http.get("/v1/status").json();
        SlotLease lease = runtime.lease();
        assertEquals("orders", body.get("namespace").asText());
        assertEquals("BOUND", body.get("state").asText());
        assertTrue(body.get("canIssue").asBoolean());
        assertEquals(lease.slot(), body.get("slot").asInt());
        assertEquals(lease.fence(), body.get("fence").asLong());
        assertEquals(lease.floor(), body.get("floor").asLong());
        assertEquals(lease.ceiling(), body.get("ceiling").asLong());
        assertEquals(lease.expiresAt(), body.get("expiresAt").asLong());
        assertTrue(body.get("nextStepInMillis").asLong() > 0);
        assertEquals(7, body.get("issued").asLong());
        assertEquals(2, body.get("generators").size());
        assertTrue(body.get("rate").get("idsPerSecond").isArray());
    }

    @Test
    void healthIsUpWhileIdsCanBeIssued() {
        Http.Reply reply = http.get("/health");
        assertEquals(200, reply.status());
        assertEquals("UP", reply.json().get("status").asText());
        assertEquals(runtime.lease().slot(), reply.json().get("slot").asInt());
    }

    @Test
    void servesTheRuntimesMetersInThePrometheusTextFormat() {
        http.get("/v1/ids?count=42");
        Http.Reply reply = http.get("/metrics");
        assertEquals(200, reply.status());
        assertTrue(reply.contentType().startsWith("text/plain; version=0.0.4"), reply.contentType());
        assertTrue(reply.body().contains("# TYPE cosid_ids_issued_total counter"), reply.body());
        assertTrue(Pattern.compile("(?m)^cosid_ids_issued_total\\{generator=\"default\",namespace=\"orders\"} 42\\.0$")
                .matcher(reply.body()).find(), reply.body());
        assertTrue(Pattern.compile("(?m)^cosid_lease_slot\\{namespace=\"orders\"} " + runtime.lease().slot() + "\\.0$")
                .matcher(reply.body()).find(), reply.body());
        assertTrue(reply.body().contains("cosid_lease_bound{namespace=\"orders\"} 1.0"), reply.body());
    }

    @Test
    void answersCosIdProxyServerPathsWithItsShapes() {
        Http.Reply number = http.get("/ids");
        assertEquals(200, number.status());
        assertEquals("application/json", number.contentType());
        assertTrue(number.body().matches("[0-9]{1,19}"), "a bare JSON number: " + number.body());
        Http.Reply named = http.get("/ids/order");
        assertTrue(named.body().matches("[0-9]{1,19}"), named.body());
        Http.Reply text = http.get("/ids/as-string");
        assertEquals(200, text.status());
        assertTrue(text.contentType().startsWith("text/plain"), text.contentType());
        assertTrue(text.body().matches("[0-9]{1,19}"), text.body());
        Http.Reply namedText = http.get("/ids/as-string/order");
        assertTrue(namedText.body().matches("[0-9]{1,19}"), namedText.body());
        Set<Long> all = new HashSet<>(List.of(Long.parseLong(number.body()), Long.parseLong(text.body())));
        assertEquals(2, all.size());
        assertEquals(2, runtime.snowflake("default").stats().issued());
        assertEquals(2, runtime.snowflake("order").stats().issued());
    }

    @Test
    void servesTheStatusPageFromTheJarWithNoExternalAssets() {
        Http.Reply reply = http.get("/");
        assertEquals(200, reply.status());
        assertEquals("text/html; charset=utf-8", reply.contentType());
        String page = reply.body();
        assertTrue(page.contains("id=\"window-chart\""));
        assertFalse(Pattern.compile("(src|href)\\s*=\\s*\"(https?:)?//").matcher(page).find(), "no external asset");
        assertFalse(Pattern.compile("url\\(\\s*['\"]?(https?:)?//|@import").matcher(page).find(), "no external style");
        assertFalse(Pattern.compile("fetch\\(\\s*['\"](https?:)?//").matcher(page).find(), "no external data");
    }

    @ParameterizedTest(name = "{0} {1} answers {2} {3}")
    @CsvSource(delimiter = ' ', value = {
        "GET /nope 404 not_found",
        "GET /v1 404 not_found",
        "GET /v1/ids?count=0 400 count_out_of_range",
        "GET /v1/ids?count=1001 400 count_out_of_range",
        "GET /v1/ids?count=99999999999 400 bad_count",
        "GET /v1/ids?count=abc 400 bad_count",
        "GET /v1/ids?count=-1 400 bad_count",
        "GET /v1/ids?count= 400 bad_count",
        "GET /v1/ids?format=hex 400 bad_format",
        "GET /v1/ids?cnt=5 400 unknown_parameter",
        "GET /v1/ids?count=1&count=2 400 repeated_parameter",
        "GET /v1/ids/nope 404 unknown_id_space",
        "POST /v1/ids/nope?count=5 404 unknown_id_space",
        "GET /ids/nope 404 unknown_id_space",
        "GET /ids/as-string/nope 404 unknown_id_space",
        "GET /ids?count=2 400 unknown_parameter",
        "GET /v1/decode/abc 400 bad_id",
        "GET /v1/decode/-5 400 bad_id",
        "GET /v1/decode/9223372036854775808 400 bad_id",
        "GET /v1/decode/12345678901234567890 400 bad_id",
        "GET /v1/decode/0KfR!aaaaaa?format=radix62 400 bad_id",
        "GET /v1/decode/abc?format=radix62 400 bad_id",
        "GET /v1/decode/1?layout=NOPE 400 bad_layout",
        "GET /v1/status?verbose=1 400 unknown_parameter",
        "DELETE /v1/ids 405 method_not_allowed",
        "PUT /v1/ids/order 405 method_not_allowed",
        "POST /ids 405 method_not_allowed",
        "POST /health 405 method_not_allowed",
        "PUT / 405 method_not_allowed",
        "POST /v1/slots 405 method_not_allowed",
        "DELETE /metrics 405 method_not_allowed",
    })
    void refusesBadInputWithAJsonErrorAndIssuesNothing(String method, String path, int status, String code) {
        long before = issued();
        Http.Reply reply = http.send(method, path.replace("!", "%21"));
        assertEquals(status, reply.status(), reply.body());
        assertEquals("application/json", reply.contentType());
        JsonNode body = reply.json();
        assertEquals(status, body.get("status").asInt());
        assertEquals(code, body.get("error").asText());
        assertFalse(body.get("message").asText().isBlank());
        assertNoStackTrace(reply.body());
        if (status == 405) {
            assertTrue(reply.header("Allow").isPresent(), "405 names the allowed methods");
        }
        assertEquals(before, issued(), "a refused request issues nothing");
    }

    @Test
    void namesTheValueItRefuses() {
        assertEquals("count 0 is outside 1..1000", http.get("/v1/ids?count=0").json().get("message").asText());
        assertEquals("format 'hex' is neither decimal nor radix62",
                http.get("/v1/ids?format=hex").json().get("message").asText());
        assertEquals("id space 'nope' is not served here; served: default, order",
                http.get("/v1/ids/nope").json().get("message").asText());
        assertEquals("method DELETE is not allowed here; use GET, POST",
                http.send("DELETE", "/v1/ids").json().get("message").asText());
        assertEquals("GET, POST", http.send("DELETE", "/v1/ids").header("Allow").orElseThrow());
    }

    @Test
    void answersARequestThatIsNotHttpWithAJsonErrorAndCloses() throws Exception {
        String answer = raw("NOT HTTP AT ALL\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 400 "), answer);
        assertTrue(answer.contains("\"error\":\"bad_request\""), answer);
        assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), answer);
        assertNoStackTrace(answer);
    }

    @Test
    void servesHttp10AndHttp11AndRefusesAnotherMajorVersionWith505() throws Exception {
        String http10 = raw("GET /v1/ids?count=2 HTTP/1.0\r\nHost: x\r\n\r\n");
        assertTrue(http10.startsWith("HTTP/1.1 200 "), http10);
        assertTrue(http10.toLowerCase(java.util.Locale.ROOT).contains("connection: close"),
                "an HTTP/1.0 request without keep-alive is answered on a connection that closes: " + http10);
        assertEquals(2, issued());
        String http11 = raw("GET /v1/ids HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(http11.startsWith("HTTP/1.1 200 "), http11);
        assertEquals(3, issued());
        for (String version : List.of("HTTP/2.0", "HTTP/0.9", "HTTP/3.0")) {
            String answer = raw("GET /v1/ids HTTP" + version.substring(4) + "\r\nHost: x\r\n\r\n");
            assertTrue(answer.startsWith("HTTP/1.1 505 "), answer);
            assertTrue(answer.endsWith("{\"status\":505,\"error\":\"http_version_not_supported\",\"message\":\""
                    + version + " is not served here; send HTTP/1.1 or HTTP/1.0\"}"), answer);
            assertTrue(answer.toLowerCase(java.util.Locale.ROOT).contains("connection: close"), answer);
        }
        assertEquals(3, issued(), "a refused request issues nothing");
    }

    @Test
    void answersAQueryThatDoesNotDecodeWith400() throws Exception {
        String answer = raw("GET /v1/ids?count=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertTrue(answer.startsWith("HTTP/1.1 400 "), answer);
        assertTrue(answer.contains("\"error\":\"bad_request\""), answer);
        assertNoStackTrace(answer);
        assertEquals(0, issued());
    }

    @Test
    void answersARequestBodyAboveTheLimitWith413() throws Exception {
        String body = "x".repeat(9000);
        String answer = raw("POST /v1/ids HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
        assertTrue(answer.startsWith("HTTP/1.1 413 "), answer);
        assertTrue(answer.contains("\"error\":\"body_too_large\""), answer);
        assertEquals(0, issued());
    }

    @Test
    void answersPipelinedRequestsInOrderAcrossASlotTableRead() throws Exception {
        String request = "GET /v1/slots HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/ids?count=2 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        String answer = raw(request);
        int slots = answer.indexOf("\"selfSlot\"");
        int ids = answer.indexOf("\"ids\"");
        int health = answer.indexOf("\"status\":\"UP\"");
        assertTrue(slots > 0 && ids > slots && health > ids, "three answers in request order: " + answer);
    }

    private String raw(String request) throws Exception {
        try (Socket socket = new Socket(server.address().getAddress(), server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static void assertNoStackTrace(String body) {
        assertFalse(body.contains("Exception"), "no exception class reaches a client: " + body);
        assertFalse(body.contains("\tat ") || body.contains("at dev.cosid") || body.contains("at io.netty"),
                "no stack trace reaches a client: " + body);
    }
}
