package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cosid.CosIdRuntime;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The status page in headless Chromium shows the slot, fence and window the API reports, and follows
 * a renewal; the screenshot is kept at {@code target/status-page.png}.
 */
class StatusPageBrowserTest {

    private static final String SECRET = "browser-token-0123456789";
    private static final Path SCREENSHOT = Path.of("target", "status-page.png");

    /** What the page shows, read from the page's own elements. */
    private static Map<String, String> shown(Chromium browser) throws Exception {
        Map<String, String> values = new LinkedHashMap<>();
        for (String id : new String[] {"namespace", "slot", "fence", "floor", "ceiling", "expires"}) {
            values.put(id, browser.text(id));
        }
        return values;
    }

    /** The same values from the API, as the page would print them. */
    private static Map<String, String> reported(Http api) {
        JsonNode status = api.get("/v1/status").json();
        Map<String, String> values = new LinkedHashMap<>();
        values.put("namespace", status.get("namespace").asText());
        values.put("slot", status.get("slot").asText());
        values.put("fence", status.get("fence").asText());
        values.put("floor", status.get("floor").asText());
        values.put("ceiling", status.get("ceiling").asText());
        values.put("expires", status.get("expiresAt").asText());
        return values;
    }

    @Test
    void theStatusPageShowsTheApisSlotFenceAndWindowAndFollowsARenewal() throws Exception {
        // a 3 s lease renews every second, so the page must follow the window as it moves
        InMemoryLeaseStore store = new InMemoryLeaseStore();
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("browser").store(store)
                .ownerKey("status-page").ttl(Duration.ofSeconds(3)).start();
             CosIdRuntime neighbour = CosIdRuntime.builder().namespace("browser").store(store)
                     .ownerKey("neighbour").ttl(Duration.ofSeconds(3)).start()) {
            CosIdServer server = CosIdServer.builder().port(0).segments(List.of("invoice"))
                    .token(BearerToken.of(SECRET, "a test")).start(runtime);
            Http api = new Http(server.uri()).withToken(SECRET);
            AtomicBoolean loading = new AtomicBoolean(true);
            Thread load = new Thread(() -> {
                while (loading.get()) {
                    api.get("/v1/ids?count=100");
                    Await.elapse(Duration.ofMillis(20));
                }
            }, "status-page-load");
            load.start();
            try (Chromium browser = Chromium.start(Path.of("target", "chromium"))) {
                // the token travels in the fragment, which the browser never sends to the server
                browser.open(server.uri().resolve("/#token=" + SECRET));
                Await.until(() -> !text(browser, "slot").equals("…"), Duration.ofSeconds(20), "the page's first refresh");

                AtomicReference<String> last = new AtomicReference<>();
                Await.until(() -> {
                    Map<String, String> page = shownQuietly(browser);
                    Map<String, String> fromApi = reported(api);
                    last.set("page " + page + ", api " + fromApi);
                    return page.equals(fromApi);
                }, Duration.ofSeconds(15), "the page to show what the API reports");
                Map<String, String> first = shown(browser);
                assertEquals(Integer.toString(runtime.lease().slot()), first.get("slot"), last.get());
                assertEquals(Long.toString(runtime.lease().fence()), first.get("fence"));
                assertTrue(browser.text("slot-row-" + runtime.lease().slot()).contains("(this server)"));
                assertTrue(browser.text("slot-row-" + neighbour.lease().slot()).contains("neighbour"),
                        "the slot table lists the other holder");
                assertEquals("BOUND", browser.text("state"));
                Await.until(() -> segmentRow(browser).startsWith("invoice"), Duration.ofSeconds(10),
                        "the segment counters listed");
                assertTrue(segmentRow(browser).matches("invoice\\s+[0-9]+\\s+yes"), segmentRow(browser));

                // the ceiling and the renewal count of one moment of the page: read apart, a refresh between the two
                // reads could show the renewal in the count but not yet in the baseline ceiling
                JsonNode baseline = browser.script("return [document.getElementById('ceiling').innerText,"
                        + " document.getElementById('renewals').innerText];");
                long ceiling = Long.parseLong(baseline.get(0).asText());
                long renewals = Long.parseLong(baseline.get(1).asText());
                Await.until(() -> {
                    Map<String, String> page = shownQuietly(browser);
                    Map<String, String> fromApi = reported(api);
                    last.set("page " + page + ", api " + fromApi);
                    return Long.parseLong(page.get("ceiling")) > ceiling && page.equals(fromApi);
                }, Duration.ofSeconds(15), "the page to show the window a renewal moved: " + last.get());
                assertTrue(Long.parseLong(browser.text("renewals")) > renewals, "the renewal count moved");
                assertEquals(first.get("slot"), browser.text("slot"), "a renewal keeps the slot");
                assertEquals(first.get("fence"), browser.text("fence"), "a renewal keeps the fence");
                JsonNode drawn = browser.script("const r = document.getElementById('window-rect');"
                        + " return r ? Number(r.getAttribute('width')) : 0;");
                assertTrue(drawn.asDouble() > 10, "the window is drawn against now");

                Await.until(() -> !text(browser, "rate-now").equals("0"), Duration.ofSeconds(10), "a rate");
                browser.screenshot(SCREENSHOT);
                assertTrue(Files.size(SCREENSHOT) > 10_000, "a screenshot of the page");
            } finally {
                loading.set(false);
                load.join();
                server.close();
            }
        }
    }

    private static String segmentRow(Chromium browser) {
        try {
            return browser.script("const r = document.getElementById('segment-row-invoice');"
                    + " return r ? r.innerText : '';").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(Chromium browser, String id) {
        try {
            return browser.text(id);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> shownQuietly(Chromium browser) {
        try {
            return shown(browser);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
