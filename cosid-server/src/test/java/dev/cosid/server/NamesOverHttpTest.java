package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.testkit.BadNames;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP server's doors for names: the builder refuses every name of {@link BadNames#ALL}, and a request
 * whose path carries one answers {@code 400 bad_name} with the rule's own message and creates nothing.
 */
class NamesOverHttpTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private CosIdRuntime runtime;
    private CosIdServer server;
    private Http http;

    @BeforeEach
    void start() {
        runtime = CosIdRuntime.builder().namespace("names").store(store).ownerKey("names").start();
        store.raiseSegment("names", "invoice", 10);
        server = CosIdServer.builder().port(0).names(List.of("default", "order")).start(runtime);
        http = new Http(server.uri());
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
    }

    /** Every character percent-encoded, so the client sends the name as it is and the server decodes it. */
    private static String encoded(String name) {
        StringBuilder out = new StringBuilder();
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            out.append('%').append(String.format("%02X", b & 0xff));
        }
        return out.toString();
    }

    @Test
    void theBuilderRefusesEveryBadNameForIdSpacesAndSegments() {
        for (String bad : BadNames.ALL) {
            IllegalArgumentException names = assertThrows(IllegalArgumentException.class,
                    () -> CosIdServer.builder().names(List.of("default", bad)).check(), bad);
            assertEquals(BadNames.refusal(bad), names.getMessage());
            IllegalArgumentException segments = assertThrows(IllegalArgumentException.class,
                    () -> CosIdServer.builder().segments(List.of(bad)).check(), bad);
            assertEquals(BadNames.refusal(bad), segments.getMessage());
        }
    }

    @Test
    void aBadNameInAnyPathIsRefusedWithTheRulesMessageAndCreatesNothing() {
        for (String bad : BadNames.ALL) {
            for (String prefix : List.of("/v1/ids/", "/v1/segments/", "/api/segment/get/", "/api/snowflake/get/",
                    "/ids/", "/ids/as-string/")) {
                if (bad.isEmpty() && prefix.equals("/api/snowflake/get/")) {
                    continue; // a key is required there: 404, as LeafPathsTest shows
                }
                Http.Reply reply = http.get(prefix + encoded(bad));
                assertEquals(400, reply.status(), prefix + bad + ": " + reply.body());
                assertEquals("bad_name", reply.json().get("error").asText(), reply.body());
                assertEquals(BadNames.refusal(bad), reply.json().get("message").asText(), prefix + bad);
            }
        }
        assertEquals(List.of("default", "order"), runtime.generators().stream().map(SnowflakeId::name).toList(),
                "no id space was created");
        assertTrue(runtime.segments().isEmpty(), "no segment generator was created: " + runtime.segments());
        assertEquals(java.util.Map.of("invoice", 10L), store.segments("names"), "no counter was created or moved");
        assertEquals(0, runtime.generators().stream().mapToLong(g -> g.stats().issued()).sum(), "no id was issued");
    }

    @Test
    void anUnencodedPathWithASlashIsRefusedToo() {
        for (String path : List.of("/v1/segments/a/b", "/api/segment/get/a/b", "/v1/ids/a/b")) {
            Http.Reply reply = http.get(path);
            assertEquals(400, reply.status(), path + ": " + reply.body());
            assertEquals("bad_name", reply.json().get("error").asText(), reply.body());
        }
        assertTrue(runtime.segments().isEmpty());
    }
}
