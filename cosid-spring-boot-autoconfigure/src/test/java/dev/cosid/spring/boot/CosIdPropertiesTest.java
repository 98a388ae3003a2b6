package dev.cosid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.IdUnavailableException;
import dev.cosid.SnowflakeId;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.testkit.Await;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteDataSource;
import tools.jackson.databind.json.JsonMapper;

/** Every cosid.* property, and every kind of bad value, through Spring Boot's own context runner. */
class CosIdPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CosIdAutoConfiguration.class, CosIdJacksonAutoConfiguration.class,
                    JacksonAutoConfiguration.class));

    @TempDir
    Path dir;

    @Test
    void theStoreAndLeaseSettingsReachTheRuntime() {
        runner.withPropertyValues("cosid.namespace=orders", "cosid.store=memory:", "cosid.ttl=4s", "cosid.tolerance=250ms",
                "cosid.bits=6", "cosid.owner-key=pod-7:8080", "cosid.preferred-slot=5", "cosid.acquire-timeout=2s")
                .run(context -> {
                    CosIdRuntime runtime = context.getBean(CosIdRuntime.class);
                    SlotLease lease = runtime.lease();
                    assertEquals("orders", runtime.namespace());
                    assertEquals(64, runtime.slotLimit());
                    assertEquals("pod-7:8080", runtime.owner().key());
                    assertEquals(5, lease.slot());
                    long ttl = lease.expiresAt() - lease.storeNow();
                    assertTrue(ttl > 3_900 && ttl <= 4_000, "expiry about now + ttl: " + ttl);
                    assertEquals(250, lease.ceiling() - lease.expiresAt());
                });
    }

    @Test
    void theColdStartGuardAndMaxWaitHoldTheFirstIdBackAndRefuseAtOnce() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.cold-start-guard=true", "cosid.max-wait=0ms",
                "cosid.ttl=30s").run(context -> {
                    CosIdRuntime runtime = context.getBean(CosIdRuntime.class);
                    SlotLease lease = runtime.lease();
                    long ahead = lease.floor() - lease.storeNow();
                    assertTrue(ahead > 30_000 && ahead <= 31_000, "a new record starts a ttl + tolerance on: " + ahead);
                    IdUnavailableException refused = assertThrows(IdUnavailableException.class,
                            () -> runtime.snowflake("order").nextId());
                    assertEquals(IdUnavailableException.Reason.FLOOR, refused.reason());
                });
    }

    @Test
    void theTakeoverGuardStartsASlotTakenFromAnExpiredHolderPastTtlAndTolerance() {
        String url = "sqlite:" + dir.resolve("takeover.db");
        try (LeaseStore store = LeaseStores.open(url)) {
            store.register("cosid", new NamespaceRecord(1, 1_000));
            // a holder that dies at once: its 1 ms lease runs out without a release
            assertTrue(store.acquire("cosid", 0, Owner.of("crashed"), new LeaseTerms(1, 1_000)).isPresent());
            Await.until(() -> {
                SlotTable table = store.read("cosid");
                return table.slots().get(0).freeAt(table.storeNow());
            }, Duration.ofSeconds(10), "the crashed holder's lease expired");
        }
        runner.withPropertyValues("cosid.store=" + url, "cosid.bits=0", "cosid.takeover-guard=true", "cosid.ttl=30s")
                .run(context -> {
                    SlotLease lease = context.getBean(CosIdRuntime.class).lease();
                    assertTrue(lease.takenOver(), "the slot was taken over: " + lease);
                    long ahead = lease.floor() - lease.storeNow();
                    assertTrue(ahead >= 31_000, "a taken-over slot starts a ttl + tolerance on: " + ahead);
                });
    }

    @Test
    void maxLeadAndTheTickingClockReachTheGenerators() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.max-lead=1s", "cosid.ticking-clock=true",
                "cosid.max-wait=0ms").run(context -> {
                    SnowflakeId ids = context.getBean(CosIdRuntime.class).snowflake("order");
                    // with max-wait 0 and no lead, the second unit's batch would be refused until the clock moves
                    // on; with a second of lead, 100 units' worth go at once, never more than a second ahead
                    long last = 0;
                    for (int i = 0; i < 100; i++) {
                        long[] batch = ids.nextIds(4096);
                        last = batch[batch.length - 1];
                    }
                    long ahead = IdLayout.MILLISECOND.parse(last).timestampMillis() - dev.cosid.time.Clock.system().nowMillis();
                    assertTrue(ahead <= 1_000, "at most the lead ahead of the clock: " + ahead);
                });
    }

    @Test
    void theSeedsStaticBlockWithNotBeforeSetsSlotFloorAndCeiling() {
        Path state = dir.resolve("state");
        Instant notBefore = Instant.now().plusSeconds(3600);
        runner.withPropertyValues("POD_ORDINAL=3", "cosid.machine.static.slot=${POD_ORDINAL}",
                "cosid.machine.static.state-file=" + state, "cosid.machine.static.ahead=20s",
                "cosid.machine.static.not-before=" + notBefore).run(context -> {
                    SlotLease lease = context.getBean(CosIdRuntime.class).lease();
                    assertEquals(3, lease.slot());
                    assertEquals(notBefore.toEpochMilli(), lease.floor());
                    assertTrue(Files.exists(state), "the ceiling is on disk before any id");
                });
        runner.withPropertyValues("cosid.machine.static.slot=4", "cosid.machine.static.state-file=" + dir.resolve("s2"),
                "cosid.machine.static.ahead=20s").run(context -> {
                    SlotLease lease = context.getBean(CosIdRuntime.class).lease();
                    long ahead = lease.ceiling() - dev.cosid.time.Clock.system().nowMillis();
                    assertTrue(ahead > 15_000 && ahead <= 20_000, "ceiling about now + ahead: " + ahead);
                });
    }

    @Test
    void namedGeneratorsGetTheirLayouts() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.bits=3", "cosid.generators.order.layout=SECOND",
                "cosid.generators.web.layout=safe-js-millisecond", "cosid.generators.custom.layout=MILLISECOND",
                "cosid.generators.custom.sequence-bits=10", "cosid.generators.custom.timestamp-bits=43",
                "cosid.generators.custom.unit=2ms").run(context -> {
                    CosIdGenerators generators = context.getBean(CosIdGenerators.class);
                    assertEquals(IdLayout.SECOND, generators.get("order").layout());
                    assertEquals(IdLayout.SAFE_JS_MILLISECOND, generators.get("web").layout());
                    assertEquals(new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 2, 43, 10, 10),
                            generators.get("custom").layout());
                    assertEquals(IdLayout.MILLISECOND, generators.get("other").layout());
                    SnowflakeId web = generators.get("web");
                    assertTrue(web.nextId() < (1L << 53));
                });
    }

    @Test
    void jacksonWritesEveryLongAsAStringWhenAsked() {
        runner.withPropertyValues("cosid.store=memory:", "cosid.jackson.longs=radix62").run(context -> {
            JsonMapper mapper = context.getBean(JsonMapper.class);
            assertEquals("\"0000000000F\"", mapper.writeValueAsString(15L));
        });
        runner.withPropertyValues("cosid.store=memory:").run(context ->
                assertEquals("15", context.getBean(JsonMapper.class).writeValueAsString(15L)));
        runner.withPropertyValues("cosid.store=memory:", "cosid.jackson.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(dev.cosid.jackson.CosIdJacksonModule.class));
    }

    @Test
    void disabledStartsNoRuntime() {
        runner.withPropertyValues("cosid.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(CosIdRuntime.class));
    }

    @Test
    void theOwnerKeyDefaultsToTheHostAndTheServerPortOrElseThePid() throws Exception {
        String host = System.getenv("HOSTNAME") != null && !System.getenv("HOSTNAME").isBlank() ? System.getenv("HOSTNAME")
                : InetAddress.getLocalHost().getHostName();
        runner.withPropertyValues("cosid.store=memory:", "server.port=8443").run(context ->
                assertEquals(host + ":8443", context.getBean(CosIdRuntime.class).owner().key()));
        runner.withPropertyValues("cosid.store=memory:", "server.port=0").run(context ->
                assertEquals(host + ":" + ProcessHandle.current().pid(), context.getBean(CosIdRuntime.class).owner().key()));
    }

    @Test
    void theApplicationsDataSourceIsAStore() {
        SQLiteDataSource sqlite = new SQLiteDataSource();
        sqlite.setUrl("jdbc:sqlite:" + dir.resolve("app.db"));
        runner.withBean(DataSource.class, () -> sqlite)
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class))
                .withPropertyValues("cosid.namespace=app", "cosid.store=datasource").run(context -> {
                    CosIdRuntime runtime = context.getBean(CosIdRuntime.class);
                    SlotTable table = JdbcLeaseStore.on(sqlite).read("app");
                    assertEquals(runtime.owner(), table.bySlot().get(runtime.lease().slot()).owner());
                });
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void cosid2KeysWithACounterpartWorkAndWarnNamingTheNewKey(CapturedOutput output) {
        startWithCosid2Keys();
        assertThat(output.getAll()).contains(
                "cosid.machine.distributor.type is a CosId 2.x key: replaced by cosid.store=datasource; using the "
                        + "application's DataSource",
                "cosid.machine.machine-bit is a CosId 2.x key: replaced by cosid.bits",
                "cosid.machine.instance-id is a CosId 2.x key: replaced by cosid.owner-key",
                "cosid.machine.enabled is a CosId 2.x key: every runtime holds a slot: set cosid.store, or "
                        + "cosid.machine.static.slot");
    }

    private void startWithCosid2Keys() {
        SQLiteDataSource sqlite = new SQLiteDataSource();
        sqlite.setUrl("jdbc:sqlite:" + dir.resolve("legacy.db"));
        runner.withBean(DataSource.class, () -> sqlite)
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class))
                .withPropertyValues("cosid.namespace=legacy", "cosid.machine.enabled=true",
                        "cosid.machine.distributor.type=jdbc", "cosid.machine.machineBit=8",
                        "cosid.machine.instance-id=legacy-1").run(context -> {
                    CosIdRuntime runtime = context.getBean(CosIdRuntime.class);
                    assertEquals(256, runtime.slotLimit());
                    assertEquals("legacy-1", runtime.owner().key());
                    assertTrue(JdbcLeaseStore.on(sqlite).read("legacy").bySlot().containsKey(runtime.lease().slot()));
                });
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "cosid.bits|17|cosid.bits = '17': the bits must be 0 to 16",
        "cosid.bits|ten|cosid.bits = 'ten' is not a whole number",
        "cosid.ttl|soon|cosid.ttl = 'soon' is not a duration such as 30s",
        "cosid.ttl|2ms|cosid.ttl = 'PT0.002S': below the least of 3 ms",
        "cosid.tolerance|-1s|cosid.tolerance = 'PT-1S': below the least of 0 ms",
        "cosid.max-wait|-5ms|cosid.max-wait = 'PT-0.005S': below the least of 0 ms",
        "cosid.acquire-timeout|-1s|cosid.acquire-timeout = 'PT-1S': below the least of 0 ms",
        "cosid.max-lead|-1ms|cosid.max-lead = 'PT-0.001S': below the least of 0 ms",
        "cosid.max-lead|2m|cosid.max-lead = 'PT2M': longer than the most, 1 min",
        "cosid.preferred-slot|1024|cosid.preferred-slot = '1024': the slot lies outside 0..1023",
        "cosid.cold-start-guard|maybe|cosid.cold-start-guard = 'maybe' is not true or false",
        "cosid.takeover-guard|maybe|cosid.takeover-guard = 'maybe' is not true or false",
        "cosid.namespace|bad name!|cosid.namespace = 'bad name!'",
        "cosid.store|ftp://ids|cosid.store = 'ftp:...': no store on the class path takes this URL",
        "cosid.store|redis://127.0.0.1:1|the CosId runtime of namespace 'cosid' (redis://127.0.0.1:1) did not start: cannot reach redis://127.0.0.1:1",
        "cosid.store|datasource|cosid.store = 'datasource': the application has no DataSource bean",
        "cosid.store|redis|cosid.store = 'redis': the application has no Lettuce connection factory",
        "cosid.store|sqlite:|cosid.store = 'sqlite:': store URL 'sqlite:' names no file",
        "cosid.jackson.longs|hex|cosid.jackson.longs = 'hex' is not one of [NUMBER, DECIMAL, RADIX62]",
        "cosid.generators.order.layout|HOURLY|cosid.generators.order.layout = 'HOURLY': unknown layout 'HOURLY'",
        "cosid.generators.order.slot-bits|3|cosid.generators.order.layout = 'MILLISECOND with epoch null, unit null, timestamp-bits null, slot-bits 3, sequence-bits null': bits 10 exceed the layout's slot bits 3",
        "cosid.generators.order.layout|SAFE_JS_SECOND|cosid.generators.order.layout = 'SAFE_JS_SECOND': bits 10 exceed the layout's slot bits 3",
        "cosid.generators.order.timestamp-bits|60|cosid.generators.order.layout = 'MILLISECOND with epoch null, unit null, timestamp-bits 60",
        "cosid.tll|30s|cosid.tll = '30s': unknown key; this starter knows cosid.enabled",
        "cosid.segment.distributor.type|redis|cosid.segment.distributor.type = 'redis': a CosId 2.x key that CosId 5 does not take: segment counters live in cosid.store beside the leases",
        "cosid.segment.share.offset|100|cosid.segment.share.offset = '100': a CosId 2.x key that CosId 5 does not take: replaced by runtime.segment(NAME, policy) (Spring Boot: cosid.segments.NAME.min-step",
        "cosid.segment.provider.ticket.step|many|cosid.segment.provider.ticket.step = 'many': For input string",
        "cosid.segments.invoice.min-step|0|cosid.segments.invoice = 'min-step 0, max-step null, prefetch null': the segment min step 0 lies outside 1..",
        "cosid.segments.invoice.prefetch|1ms|cosid.segments.invoice = 'min-step null, max-step null, prefetch PT0.001S': segment prefetch of 1 ms is shorter than the least, 10 ms",
        "cosid.machine.distributor.type|mongo|cosid.machine.distributor.type = 'mongo': a CosId 2.x key that CosId 5 does not take: nothing replaces it: CosId 5 has no MongoDB store",
        "cosid.snowflake.provider.order.timestamp-bit|41|cosid.snowflake.provider.order.timestamp-bit = '41': a CosId 2.x key that CosId 5 does not take: replaced by runtime.snowflake(NAME, layout)"
    })
    void aBadValueStopsTheStartWithAnAnalysisNamingTheKeyAndTheValue(String key, String value, String description) {
        boolean storeKey = key.equals("cosid.store");
        ApplicationContextRunner configured = storeKey ? runner : runner.withPropertyValues("cosid.store=memory:");
        configured.withPropertyValues(key + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new CosIdFailureAnalyzer().analyze(context.getStartupFailure());
            assertNotNull(analysis, "analysed: " + context.getStartupFailure());
            assertTrue(analysis.getDescription().startsWith(description), analysis.getDescription());
            assertThat(analysis.getAction()).isNotBlank();
        });
    }

    @Test
    void springBootFindsTheFailureAnalyzer() {
        // others need constructor arguments that Spring Boot passes; only whether ours is listed matters here
        assertThat(org.springframework.core.io.support.SpringFactoriesLoader.forDefaultResourceLocation()
                .load(org.springframework.boot.diagnostics.FailureAnalyzer.class,
                        org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler.handleMessage(
                                (message, failure) -> { })))
                .anyMatch(analyzer -> analyzer instanceof CosIdFailureAnalyzer);
    }

    @Test
    void aMissingStoreAndAStoreBesideAStaticSlotAreRefused() {
        runner.run(context -> {
            FailureAnalysis analysis = new CosIdFailureAnalyzer().analyze(context.getStartupFailure());
            assertEquals("cosid.store is not set: the runtime needs a store, or a static slot", analysis.getDescription());
            assertThat(analysis.getAction()).contains("cosid.machine.static.slot");
        });
        runner.withPropertyValues("cosid.store=memory:", "cosid.machine.static.slot=1").run(context ->
                assertEquals("cosid.store = 'memory:': a static slot (cosid.machine.static.slot = 1) takes no store",
                        new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription()));
        runner.withPropertyValues("cosid.machine.static.slot=1", "cosid.machine.static.ahead=1ms").run(context ->
                assertThat(new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                        .startsWith("cosid.machine.static.ahead = 'PT0.001S': below the least of 2 ms"));
        runner.withPropertyValues("cosid.store=memory:", "cosid.owner-key=").run(context ->
                assertEquals("cosid.owner-key = '': owner key '' must have 1 to 255 non-blank characters",
                        new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription()));
        runner.withPropertyValues("cosid.machine.static.slot=-1").run(context ->
                assertThat(new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                        .startsWith("cosid.machine.static.slot = '-1': the slot lies outside 0..1023"));
        runner.withPropertyValues("cosid.machine.static.slot=1", "cosid.machine.static.not-before=tomorrow").run(context ->
                assertThat(new CosIdFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                        .startsWith("cosid.machine.static.not-before = 'tomorrow' is not an ISO-8601 instant"));
    }

    @Test
    void anExhaustedNamespaceStopsTheStartAfterTheAcquireTimeout() {
        Path db = dir.resolve("full.db");
        try (CosIdRuntime holder = CosIdRuntime.builder().namespace("full").bits(0).store("sqlite:" + db).start()) {
            runner.withPropertyValues("cosid.namespace=full", "cosid.bits=0", "cosid.store=sqlite:" + db,
                    "cosid.acquire-timeout=300ms").run(context -> {
                        FailureAnalysis analysis = new CosIdFailureAnalyzer().analyze(context.getStartupFailure());
                        assertThat(analysis.getDescription()).startsWith("the CosId runtime of namespace 'full' (sqlite:"
                                + db + ") did not start: ").contains("full");
                    });
            assertEquals(0, holder.lease().slot());
        }
    }
}
