package dev.cosid.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.ServerProcess;
import dev.cosid.testkit.servers.Servers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium driven through chromedriver's W3C WebDriver protocol, spoken over the JDK's HTTP
 * client. A missing browser or driver skips the test naming the Debian package, unless
 * {@code COSID_REQUIRE_SERVERS=true}.
 */
final class Chromium implements AutoCloseable {

    /** Chromium hangs on lookups in a closed network without these. */
    private static final List<String> FLAGS = List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", "--window-size=1280,1100");

    private final Process driver;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String session;

    private Chromium(Process driver, URI base, String session) {
        this.driver = driver;
        this.base = base;
        this.session = session;
    }

    static Chromium start(Path work) throws Exception {
        Path browser = Servers.binary("chromium", "chromium", List.of("/usr/bin"));
        Path chromedriver = Servers.binary("chromedriver", "chromium-driver", List.of("/usr/bin", "/usr/lib/chromium"));
        Files.createDirectories(work);
        int port = ServerProcess.freePort();
        Process driver = new ProcessBuilder(chromedriver.toString(), "--port=" + port)
                .redirectErrorStream(true).redirectOutput(work.resolve("chromedriver.log").toFile()).start();
        URI base = URI.create("http://127.0.0.1:" + port + "/");
        HttpClient probe = HttpClient.newHttpClient();
        try {
            Await.until(() -> ready(probe, base), Duration.ofSeconds(20), "chromedriver on port " + port);
            ObjectNode options = Http.JSON.createObjectNode();
            options.put("binary", browser.toString());
            ArrayNode args = options.putArray("args");
            FLAGS.forEach(args::add);
            args.add("--user-data-dir=" + Files.createTempDirectory(work, "profile-"));
            ObjectNode body = Http.JSON.createObjectNode();
            ObjectNode match = body.putObject("capabilities").putObject("alwaysMatch");
            match.put("browserName", "chrome");
            match.set("goog:chromeOptions", options);
            JsonNode created = call(HttpClient.newHttpClient(), "POST", base.resolve("session"), body);
            return new Chromium(driver, base, created.get("sessionId").asText());
        } catch (Exception | AssertionError e) {
            driver.destroy();
            driver.waitFor(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static boolean ready(HttpClient client, URI base) {
        try {
            HttpResponse<String> status = client.send(HttpRequest.newBuilder(base.resolve("status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return Http.JSON.readTree(status.body()).path("value").path("ready").asBoolean();
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    void open(URI page) throws Exception {
        ObjectNode body = Http.JSON.createObjectNode().put("url", page.toString());
        call(client, "POST", endpoint("url"), body);
    }

    /** Runs a script in the page and returns its result. */
    JsonNode script(String javascript) throws Exception {
        ObjectNode body = Http.JSON.createObjectNode().put("script", javascript);
        body.putArray("args");
        return call(client, "POST", endpoint("execute/sync"), body);
    }

    /** Returns the text an element shows. */
    String text(String id) throws Exception {
        return script("const e = document.getElementById('" + id + "'); return e ? e.innerText : null;").asText();
    }

    void screenshot(Path file) throws Exception {
        JsonNode png = call(client, "GET", endpoint("screenshot"), null);
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png.asText()));
    }

    private URI endpoint(String path) {
        return base.resolve("session/" + session + "/" + path);
    }

    private static JsonNode call(HttpClient client, String method, URI uri, JsonNode body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json");
        request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(Http.JSON.writeValueAsString(body)));
        HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        JsonNode answer = Http.JSON.readTree(response.body());
        if (response.statusCode() != 200) {
            throw new AssertionError("webdriver " + method + " " + uri + " answered " + response.statusCode() + ": "
                    + answer.path("value").path("message").asText(response.body()));
        }
        return answer.get("value");
    }

    @Override
    public void close() throws Exception {
        try {
            call(client, "DELETE", base.resolve("session/" + session), null);
        } finally {
            driver.destroy();
            if (!driver.waitFor(10, TimeUnit.SECONDS)) {
                driver.destroyForcibly();
            }
        }
    }
}
