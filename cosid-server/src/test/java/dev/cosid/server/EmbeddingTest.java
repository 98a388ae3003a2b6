package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.micrometer.CosIdMetrics;
import dev.cosid.testkit.Await;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedding of docs/http.md: the metrics as the runtime's listener count its renewals on /metrics. */
class EmbeddingTest {

    private static final Pattern RENEWALS =
            Pattern.compile("(?m)^cosid_lease_renewals_total\\{namespace=\"orders\",outcome=\"success\"} (\\d+)\\.0$");

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
                        Http http = new Http(server.uri()).withToken("embedding-token-0123456789");
                        assertEquals(200, http.get("/v1/ids?count=10").status());
                        Await.until(() -> renewals(http.get("/metrics").body()) >= 2, Duration.ofSeconds(20),
                                "two renewals counted on /metrics");
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

    private static long renewals(String metrics) {
        Matcher matcher = RENEWALS.matcher(metrics);
        assertTrue(matcher.find(), metrics);
        return Long.parseLong(matcher.group(1));
    }
}
