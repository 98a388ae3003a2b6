package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigurationTest {

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);
    private final ManualScheduler scheduler = new ManualScheduler(clock);
    private int mark;

    @BeforeEach
    void listen() {
        mark = RecordingLogs.count();
    }

    /** The warnings Configuration logged during this test. */
    private List<String> warnings() {
        return RecordingLogs.since(mark).stream().filter(event -> event.logger().equals(Configuration.class.getName()))
                .map(RecordingLogs.Event::message).toList();
    }

    private CosIdRuntime.Builder builder() {
        return CosIdRuntime.builder().namespace("orders").clock(clock).scheduler(scheduler);
    }

    @Test
    void cosid2KeysWithACounterpartAreAppliedAndWarnNamingTheNewKey() {
        Map<String, String> legacy = new LinkedHashMap<>();
        legacy.put("cosid.machine.enabled", "true");
        legacy.put("cosid.snowflake.enabled", "true");
        legacy.put("cosid.machine.machine-bit", "8");
        legacy.put("cosid.machine.instanceId", "pod-3:8080");
        legacy.put("cosid.machine.guarder.safe-guard-duration", "PT2M");
        legacy.put("cosid.machine.clock-backwards.broken-threshold", "2000");
        try (CosIdRuntime runtime = builder().store(new InMemoryLeaseStore(clock)).configure(legacy).start()) {
            assertEquals(256, runtime.slotLimit(), "machine-bit became bits");
            assertEquals("pod-3:8080", runtime.owner().key(), "instance-id became the owner key");
            assertEquals(120_000, runtime.lease().expiresAt() - runtime.lease().storeNow(), "safe-guard became the ttl");
        }
        assertEquals(List.of(
                "cosid.machine.enabled is a CosId 2.x key: every runtime holds a slot: set cosid.store, or "
                        + "cosid.machine.static.slot",
                "cosid.snowflake.enabled is a CosId 2.x key: generators are created by name: runtime.snowflake(NAME, "
                        + "layout) (Spring Boot: cosid.generators.NAME.layout)",
                "cosid.machine.machine-bit is a CosId 2.x key: replaced by cosid.bits",
                "cosid.machine.instanceId is a CosId 2.x key: replaced by cosid.owner-key",
                "cosid.machine.guarder.safe-guard-duration is a CosId 2.x key: replaced by cosid.ttl: a crashed "
                        + "holder's slot is free again after ttl + tolerance",
                "cosid.machine.clock-backwards.broken-threshold is a CosId 2.x key: replaced by cosid.max-wait (how "
                        + "long nextId() waits before it throws)"), warnings());
    }

    @Test
    void aManualMachineIdBecomesAStaticSlot() {
        try (CosIdRuntime runtime = builder().configure(Map.of("cosid.machine.distributor.type", "manual",
                "cosid.machine.distributor.manual.machine-id", "5")).start()) {
            assertEquals(5, runtime.lease().slot());
        }
        assertTrue(warnings().contains("cosid.machine.distributor.manual.machine-id is a CosId 2.x key: replaced by "
                + "cosid.machine.static.slot (with cosid.machine.static.state-file)"), warnings().toString());
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
        "cosid.machine.distributor.type|jdbc|replaced by cosid.store: a jdbc: URL such as jdbc:postgresql://HOST/DB "
            + "(Spring Boot: cosid.store=datasource, the application's DataSource)",
        "cosid.machine.distributor.type|REDIS|replaced by cosid.store: redis://HOST:PORT",
        "cosid.machine.distributor.type|stateful_set|replaced by cosid.machine.static.slot: ${POD_ORDINAL}",
        "cosid.machine.distributor.type|mongo|nothing replaces it: CosId 5 has no MongoDB store",
        "cosid.machine.distributor.redis.timeout|1s|nothing replaces it: the store is configured by its URL alone",
        "cosid.machine.enabled|false|nothing replaces it: every snowflake id needs a slot",
        "cosid.machine.guarder.enabled|false|nothing replaces it: a lease is always renewed",
        "cosid.machine.state-storage.local.state-location|./cosid-machine-state/|replaced by "
            + "cosid.machine.static.state-file, a file of another format: carry the old state over with './cosid migrate",
        "cosid.snowflake.epoch|1600000000000|replaced by a layout of its own: runtime.snowflake(NAME, new IdLayout(epoch",
        "cosid.snowflake.zone-id|Asia/Shanghai|nothing replaces it: ids carry UTC milliseconds",
        "cosid.snowflake.provider.order.timestamp-bit|41|replaced by runtime.snowflake(NAME, layout)",
        "cosid.snowflake.share.enabled|true|replaced by runtime.snowflake(NAME, layout)",
        "cosid.segment.distributor.type|jdbc|segment counters live in cosid.store beside the leases: carry CosId's "
            + "counters over first with './cosid migrate'",
        "cosid.segment.share.offset|100|replaced by runtime.segment(NAME, policy) (Spring Boot: cosid.segments.NAME",
        "cosid.segment.share.enabled|false|nothing replaces it: the shared segment generator",
        "cosid.generator.enabled|true|nothing replaces the radix CosIdGenerator",
        "cosid.zookeeper.connect-string|zk:2181|replaced by cosid.store: zookeeper://zk:2181",
        "cosid.zookeeper.session-timeout|60s|nothing replaces it: the ZooKeeper store keeps its own session",
        "cosid.proxy.host|http://localhost:8688|nothing replaces the CosId proxy"
    })
    void cosid2KeysWithoutACounterpartAreRefusedSayingWhatReplacesThem(String key, String value, String says) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder().configure(Map.of(key, value)));
        assertTrue(e.getMessage().startsWith(key + " = '" + value + "' is a CosId 2.x key that CosId 5 does not take: "
                + says), e.getMessage());
    }

    @Test
    void cosid2SegmentKeysThatMapAreTakenWithAWarning() {
        try (CosIdRuntime runtime = builder().store(new dev.cosid.lease.InMemoryLeaseStore(clock))
                .configure(Map.of("cosid.segment.enabled", "true",
                "cosid.segment.mode", "CHAIN", "cosid.segment.share.step", "500",
                "cosid.segment.chain.safe-distance", "5")).start()) {
            long first = runtime.segment("orders").nextId();
            assertEquals(1, first);
            assertEquals(500, runtime.segment("invoices").nextIds(500)[499], "one range of at least 500 ids");
        }
        assertTrue(warnings().contains("cosid.segment.share.step is a CosId 2.x key: replaced by the runtime's segment "
                + "policy, ranges of at least 500 ids (Spring Boot: cosid.segments.NAME.min-step)"), warnings().toString());
        assertEquals(4, warnings().size(), warnings().toString());
    }

    @Test
    void aBadValueOfAnAppliedCosid2KeyNamesTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder().configure(Map.of("cosid.machine.machine-bit", "ten")));
        assertTrue(e.getMessage().startsWith("cosid.machine.machine-bit = 'ten' does not parse"), e.getMessage());
    }

    @Test
    void anUnknownKeyThatIsNoCosid2KeyIsStillRefusedListingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> builder().configure(Map.of("cosid.tll", "30s")));
        assertTrue(e.getMessage().startsWith("unknown configuration key 'cosid.tll'; known: [cosid.acquire-timeout,"),
                e.getMessage());
        assertTrue(warnings().isEmpty(), warnings().toString());
    }
}
