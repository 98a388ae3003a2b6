package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./cosid serve} without {@code --segments}, as a real process: it serves the counters that
 * {@code ./cosid segment} left in the store, as Leaf serves its table, picks up one created later, and a
 * request for any other name answers 404 and creates nothing.
 */
class ServeStoredSegmentsProcessTest {

    private static final Pattern SERVING = Pattern.compile("at (http://\\S+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    private Process process;

    @AfterEach
    void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
    }

    private String store() {
        return "sqlite:" + dir.resolve("cosid.db");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }

    private static HttpResponse<String> get(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(uri + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void serveWithoutSegmentsServesTheStoresCountersAndCreatesNone() throws Exception {
        assertEquals("1\n2\n3\n", Cli.run("segment", "invoice", "--count", "3", "--store", store()).out());
        assertEquals("1\n", Cli.run("segment", "ticket", "--store", store()).out());

        List<String> command = ChildJvm.command(List.of("-Xmx256m"), CosIdCommand.class.getName(),
                List.of("serve", "--port", "0", "--store", store(), "--ttl", "10s"));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().remove("COSID_TOKEN");
        Path err = dir.resolve("serve.err");
        builder.redirectOutput(dir.resolve("serve.out").toFile()).redirectError(err.toFile());
        process = builder.start();
        Matcher[] serving = new Matcher[1];
        Await.until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("serve exited: " + read(err));
            }
            serving[0] = SERVING.matcher(read(err));
            return serving[0].find() && read(err).contains("segment counters");
        }, Duration.ofSeconds(60), "serve to start");
        URI base = URI.create(serving[0].group(1));
        assertTrue(read(err).contains("cosid: serving the 2 segment counters of namespace 'default' in the store "
                + "(invoice, ticket) and those created later; a request never creates one"), read(err));

        HttpResponse<String> invoice = get(base.resolve("/api/segment/get/invoice"));
        assertEquals(200, invoice.statusCode(), invoice.body());
        assertEquals("4", invoice.body(), "ids continue above the counter the command line left");
        assertEquals("{\"name\":\"ticket\",\"ids\":[\"2\",\"3\"]}",
                get(base.resolve("/v1/segments/ticket?count=2")).body());

        HttpResponse<String> unknown = get(base.resolve("/v1/segments/nope"));
        assertEquals(404, unknown.statusCode(), unknown.body());
        assertTrue(unknown.body().contains("\"error\":\"unknown_segment\""), unknown.body());
        assertEquals(400, get(base.resolve("/api/segment/get/a%20b")).statusCode(), "a name outside the rule");

        assertEquals("1\n2\n", Cli.run("segment", "late", "--count", "2", "--store", store()).out());
        String[] late = new String[1];
        Await.until(() -> {
            HttpResponse<String> answer = get(base.resolve("/api/segment/get/late"));
            late[0] = answer.statusCode() + " " + answer.body();
            return answer.statusCode() == 200;
        }, Duration.ofSeconds(30), "the counter made after the start to be served");
        assertEquals("200 3", late[0]);

        Cli listed = Cli.run("segments", "--store", store());
        assertTrue(listed.out().startsWith("namespace 'default' in sqlite:"), listed.out());
        assertTrue(listed.out().contains(": 3 segment counters\n"), "invoice, late and ticket; no nope: " + listed.out());
        assertTrue(!listed.out().contains("nope") && !listed.out().contains("a b"), listed.out());

        process.destroy();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "serve stops on SIGTERM");
    }
}
