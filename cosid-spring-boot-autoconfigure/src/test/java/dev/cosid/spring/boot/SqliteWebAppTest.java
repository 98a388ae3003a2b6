package dev.cosid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.lease.SlotRecord;
import dev.cosid.spring.boot.app.web.IdsApplication;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/** Real web applications on random ports against one real SQLite file, and with the seed's static slot. */
class SqliteWebAppTest {

    @TempDir
    Path dir;

    private String[] sqlite(String namespace, String owner) {
        return new String[] {"cosid.namespace=" + namespace, "cosid.store=sqlite:" + dir.resolve("cosid.db"),
                "cosid.owner-key=" + owner, "cosid.ttl=3s"};
    }

    @Test
    void twoInstancesOnOneSqliteFileHoldDistinctSlotsAndShowThemInHealthAndTheEndpoint() {
        try (ConfigurableApplicationContext a = Apps.start(IdsApplication.class, sqlite("shop", "a:1"));
             ConfigurableApplicationContext b = Apps.start(IdsApplication.class, sqlite("shop", "b:1"))) {
            long fromA = Apps.id(a, "order");
            long fromB = Apps.id(b, "order");
            int slotA = IdLayout.MILLISECOND.parse(fromA).slot();
            int slotB = IdLayout.MILLISECOND.parse(fromB).slot();
            assertNotEquals(slotA, slotB);
            assertEquals(a.getBean(CosIdRuntime.class).lease().slot(), slotA);
            assertEquals(b.getBean(CosIdRuntime.class).lease().slot(), slotB);

            HttpResponse<String> health = Apps.get(Apps.base(a) + "/actuator/health");
            assertEquals(200, health.statusCode(), health.body());
            JsonNode cosid = Apps.json(health).get("components").get("cosid");
            assertEquals("UP", cosid.get("status").asString());
            assertEquals(slotA, cosid.get("details").get("slot").asInt());
            assertEquals("shop", cosid.get("details").get("namespace").asString());
            for (String detail : List.of("fence", "window", "expiresAt", "clockSkewMillis", "windowRemainingMillis",
                    "layoutRunsOutAt", "runwaySeconds")) {
                assertTrue(cosid.get("details").has(detail), detail + " in " + cosid);
            }

            JsonNode report = Apps.json(Apps.get(Apps.base(a) + "/actuator/cosid"));
            assertEquals(1, report.get("generators").get("order").get("issued").asLong());
            List<String> owners = new ArrayList<>();
            report.get("slotTable").get("slots").forEach(slot -> owners.add(slot.get("owner").asString()));
            assertThat(owners).contains("a:1", "b:1");
            JsonNode decoded = Apps.json(Apps.get(Apps.base(a) + "/actuator/cosid/" + fromB));
            assertEquals(slotB, decoded.get("slot").asInt());
            assertEquals(Long.toString(fromB), decoded.get("id").asString());
            assertEquals(400, Apps.get(Apps.base(a) + "/actuator/cosid/12x").statusCode());

            // a controller that takes SnowflakeId and SegmentId by type, in both instances on one store
            java.util.Set<Long> snowflakes = new java.util.HashSet<>();
            java.util.Set<Long> numbers = new java.util.HashSet<>();
            for (int i = 0; i < 20; i++) {
                for (ConfigurableApplicationContext app : List.of(a, b)) {
                    JsonNode snowflake = Apps.json(Apps.get(Apps.base(app) + "/by-type/snowflake"));
                    assertEquals("__share__", snowflake.get("generator").asString());
                    long id = Long.parseLong(snowflake.get("id").asString());
                    assertTrue(snowflakes.add(id), "snowflake id " + id + " repeated");
                    assertEquals(app.getBean(CosIdRuntime.class).lease().slot(), IdLayout.MILLISECOND.parse(id).slot());
                    long number = Long.parseLong(Apps.json(Apps.get(Apps.base(app) + "/by-type/segment")).get("id")
                            .asString());
                    assertTrue(numbers.add(number), "segment id " + number + " repeated");
                }
            }
        }
    }

    @Test
    void shutdownReleasesTheSlotAndTheNextInstancesFloorIsTheExactLastIssuedMillisecond() {
        long last;
        int slot;
        try (ConfigurableApplicationContext a = Apps.start(IdsApplication.class, sqlite("release", "a:1"))) {
            for (int i = 0; i < 5; i++) {
                Apps.id(a, "order");
            }
            last = Apps.id(a, "order");
            slot = a.getBean(CosIdRuntime.class).lease().slot();
        }
        long lastMillis = IdLayout.MILLISECOND.parse(last).timestampMillis();
        try (JdbcLeaseStore store = JdbcLeaseStore.sqlite(dir.resolve("cosid.db"))) {
            SlotRecord released = store.read("release").bySlot().get(slot);
            assertEquals(null, released.owner(), "the slot is free");
            assertEquals(lastMillis, released.nextFloor(), "the next floor is the last issued millisecond");
        }
        try (ConfigurableApplicationContext next = Apps.start(IdsApplication.class, sqlite("release", "a:1"))) {
            CosIdRuntime runtime = next.getBean(CosIdRuntime.class);
            assertEquals(slot, runtime.lease().slot(), "the same owner key gets its slot back");
            assertEquals(lastMillis, runtime.lease().floor());
            assertTrue(Apps.id(next, "order") > last);
        }
    }

    @Test
    void theSeedsYamlBlockWithAStateFileSurvivesARestartWithoutRepeating() {
        Path state = dir.resolve("state");
        String[] seed = {"spring.profiles.active=seed", "POD_ORDINAL=3", "cosid.namespace=seed",
                // the only change to the block: its /var/lib/cosid/state lies in this test's directory
                "cosid.machine.static.state-file=" + state};
        Set<Long> ids = new HashSet<>();
        long lastBefore = 0;
        try (ConfigurableApplicationContext first = Apps.start(IdsApplication.class, seed)) {
            assertEquals(3, first.getBean(CosIdRuntime.class).lease().slot());
            assertEquals(10_000, first.getBean(CosIdProperties.class).getMachine().getStatic().getAhead().toMillis());
            for (int i = 0; i < 50; i++) {
                long id = Apps.id(first, "order");
                assertTrue(ids.add(id));
                lastBefore = id;
            }
        }
        assertTrue(Files.exists(state));
        try (ConfigurableApplicationContext second = Apps.start(IdsApplication.class, seed)) {
            CosIdRuntime runtime = second.getBean(CosIdRuntime.class);
            assertEquals(3, runtime.lease().slot());
            assertTrue(runtime.lease().floor() >= IdLayout.MILLISECOND.parse(lastBefore).timestampMillis(),
                    "the floor after the restart is at least the last issued millisecond");
            for (int i = 0; i < 50; i++) {
                long id = Apps.id(second, "order");
                assertTrue(id > lastBefore, "no id after the restart lies at or below one before it");
                assertTrue(ids.add(id));
                IdParts parts = IdLayout.MILLISECOND.parse(id);
                assertEquals(3, parts.slot());
            }
        }
        assertEquals(100, ids.size());
    }

    @Test
    void metersReadBackThroughMicrometerAndThePrometheusScrapeWithTheValuesTheTestCaused() {
        String[] props = {"cosid.namespace=meters", "cosid.store=sqlite:" + dir.resolve("cosid.db"),
                "cosid.owner-key=m:1", "cosid.ttl=3s", "cosid.max-wait=0ms",
                // two ids a second at most, so a third within the second is refused at once
                "cosid.generators.tiny.layout=SECOND", "cosid.generators.tiny.sequence-bits=1"};
        try (ConfigurableApplicationContext app = Apps.start(IdsApplication.class, props)) {
            for (int i = 0; i < 7; i++) {
                Apps.id(app, "order");
            }
            int issued = 0;
            int refused = 0;
            // a loaded machine may take long per request: ask until three land within one second
            for (int i = 0; i < 300 && refused == 0; i++) {
                HttpResponse<String> response = Apps.get(Apps.base(app) + "/ids/tiny");
                if (response.statusCode() == 200) {
                    issued++;
                } else {
                    assertEquals(503, response.statusCode(), response.body());
                    assertEquals("SEQUENCE", Apps.json(response).get("reason").asString());
                    refused++;
                }
            }
            assertEquals(1, refused, "a third id within one second is refused");
            assertTrue(issued >= 2);
            CosIdRuntime runtime = app.getBean(CosIdRuntime.class);
            dev.cosid.testkit.Await.until(() -> runtime.status().renewals() >= 1, java.time.Duration.ofSeconds(20),
                    "a renewal");

            MeterRegistry registry = app.getBean(MeterRegistry.class);
            assertEquals(7, registry.get("cosid.ids.issued").tag("generator", "order").functionCounter().count());
            assertEquals(issued, registry.get("cosid.ids.issued").tag("generator", "tiny").functionCounter().count());
            assertEquals(1, registry.get("cosid.ids.refused").tag("generator", "tiny").tag("reason", "sequence")
                    .functionCounter().count());
            double renewalsBefore = registry.get("cosid.lease.renewals").tag("outcome", "success").counter().count();
            assertTrue(renewalsBefore >= 1);

            String scrape = Apps.get(Apps.base(app) + "/actuator/prometheus").body();
            double renewalsAfter = registry.get("cosid.lease.renewals").tag("outcome", "success").counter().count();
            assertEquals(7.0, sample(scrape, "cosid_ids_issued_total", "generator=\"order\""));
            assertEquals(issued, sample(scrape, "cosid_ids_issued_total", "generator=\"tiny\""));
            assertEquals(1.0, sample(scrape, "cosid_ids_refused_total", "generator=\"tiny\"", "reason=\"sequence\""));
            assertEquals(0.0, sample(scrape, "cosid_ids_refused_total", "generator=\"order\"", "reason=\"sequence\""));
            double scraped = sample(scrape, "cosid_lease_renewals_total", "outcome=\"success\"");
            assertTrue(scraped >= renewalsBefore && scraped <= renewalsAfter, scraped + " renewals scraped");
            assertEquals(runtime.lease().slot(), sample(scrape, "cosid_lease_slot"));
            assertEquals(1.0, sample(scrape, "cosid_lease_bound"));
            assertTrue(sample(scrape, "cosid_lease_window_remaining_seconds") > 0);
            assertTrue(sample(scrape, "cosid_lease_acquire_seconds_count") >= 1);
            assertEquals(0.0, sample(scrape, "cosid_lease_lost_total"));
            assertThat(scrape).contains("cosid_clock_skew_seconds{namespace=\"meters\"}");
        }
    }

    /** The value of the one sample of a metric whose labels include every given label. */
    static double sample(String scrape, String metric, String... labels) {
        List<Double> values = new ArrayList<>();
        for (String line : scrape.split("\n")) {
            if (!line.startsWith(metric + "{") && !line.startsWith(metric + " ")) {
                continue;
            }
            boolean all = true;
            for (String label : labels) {
                all &= line.contains(label);
            }
            if (all) {
                values.add(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
            }
        }
        assertEquals(1, values.size(), metric + " " + List.of(labels) + " in:\n" + scrape);
        return values.get(0);
    }
}
