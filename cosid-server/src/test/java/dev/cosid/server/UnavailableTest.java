package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** While no window covers now, health is 503 and id requests get 503 at once; they come back with a renewal. */
class UnavailableTest {

    private static final long T0 = 1_800_000_000_000L;

    private final ManualClock nodeClock = new ManualClock(T0);
    private final ManualClock storeClock = new ManualClock(T0);
    private final ManualScheduler scheduler = new ManualScheduler(nodeClock);
    private CosIdRuntime runtime;
    private CosIdServer server;
    private Http http;

    @BeforeEach
    void start() {
        runtime = CosIdRuntime.builder().namespace("orders").store(new InMemoryLeaseStore(storeClock))
                .ownerKey("node-a").clock(nodeClock).scheduler(scheduler).ttl(Duration.ofSeconds(30))
                .maxWait(Duration.ZERO).start();
        server = CosIdServer.builder().port(0).clock(nodeClock).start(runtime);
        http = new Http(server.uri());
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
    }

    private void elapse(Duration extent) {
        nodeClock.advance(extent);
        storeClock.advance(extent);
    }

    private long issued() {
        return runtime.generators().stream().mapToLong(g -> g.stats().issued()).sum();
    }

    @Test
    void pastTheCeilingHealthAndIdsAnswer503UntilARenewalMovesIt() {
        assertEquals(200, http.get("/health").status());
        assertEquals(200, http.get("/v1/ids").status());
        elapse(Duration.ofSeconds(32)); // past expiry (30 s) and ceiling (+1 s), the keeper not run

        Http.Reply health = http.get("/health");
        assertEquals(503, health.status());
        assertEquals("DOWN", health.json().get("status").asText());
        assertTrue(health.json().get("problem").asText().contains("past the ceiling"), health.body());
        for (String path : List.of("/v1/ids?count=10", "/ids", "/ids/as-string")) {
            Http.Reply reply = http.get(path);
            assertEquals(503, reply.status(), path + ": " + reply.body());
            assertEquals("unavailable", reply.json().get("error").asText());
            assertEquals("1", reply.header("Retry-After").orElseThrow());
            HttpApiTest.assertNoStackTrace(reply.body());
        }
        assertEquals(1, issued(), "nothing was issued while no window covered now");
        assertEquals(false, http.get("/v1/status").json().get("canIssue").asBoolean());

        scheduler.runDue(); // the renewal, late
        assertEquals(200, http.get("/health").status());
        assertEquals(200, http.get("/v1/ids").status());
        assertEquals(2, issued());
    }

    @Test
    void aClosedRuntimeIsDownAndIssuesNothing() {
        runtime.close();
        Http.Reply health = http.get("/health");
        assertEquals(503, health.status());
        assertTrue(health.json().get("problem").asText().contains("closed"), health.body());
        Http.Reply ids = http.get("/v1/ids");
        assertEquals(503, ids.status());
        assertEquals("unavailable", ids.json().get("error").asText());
    }
}
