package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.micrometer.CosIdMetrics;
import dev.cosid.server.BearerToken;
import dev.cosid.server.CosIdServer;
import dev.cosid.testkit.Await;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding of docs/http.md: the metrics as the runtime's listener count its renewals on /metrics. Here,
 * beside the command line, since it needs the SQLite store: the server's module does not wait for the stores'.
 */
class EmbeddingTest {

    private static final Pattern RENEWALS =
            Pattern.compile("(?m)^cosid_lease_renewals_total\\{namespace=\"orders\",outcome=\"success\"} (\\d+)\\.0$");

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void theDocumentedEmbeddingServesIdsAndCountsRenewals() throws Exception {
        Path tokenFile = Files.writeString(dir.resolve("token"), "embedding-token-0123456789\n");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        CosIdMetrics metrics = new CosIdMetrics(registry, "orders");
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store("sqlite:" + dir.resolve("cosid.db"))
                .ttl(Duration.ofMillis(600)).listener(metrics).start()) {
            metrics.bind(runtime);
            try (CosIdServer server = CosIdServer.builder()
                    .port(0)
                    .token(BearerToken.fromFile(tokenFile))
                    .meterRegistry(registry)
                    .start(runtime)) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread client = new Thread(() -> {
                    try {
                        assertEquals(200, get(server.uri(), "/v1/ids?count=10").statusCode());
                        Await.until(() -> renewals(get(server.uri(), "/metrics").body()) >= 2,
                                Duration.ofSeconds(20), "two renewals counted on /metrics");
                    } catch (Throwable e) {
                        failure.set(e);
                    } finally {
                        server.close(); // what a shutdown hook of the embedding application does
                    }
                });
                client.start();
                server.awaitClose();
                client.join();
                if (failure.get() != null) {
                    throw new AssertionError(failure.get());
                }
            }
            assertEquals(10, runtime.snowflake("default").stats().issued());
        }
    }

    private static HttpResponse<String> get(URI server, String path) {
        HttpRequest request = HttpRequest.newBuilder(server.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer embedding-token-0123456789").GET().build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static long renewals(String metrics) {
        Matcher matcher = RENEWALS.matcher(metrics);
        assertTrue(matcher.find(), metrics);
        return Long.parseLong(matcher.group(1));
    }
}
