package dev.cosid.spring.boot;

import dev.cosid.CosIdRuntime;
import dev.cosid.GeneratorStats;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.IdStrings;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code cosid} actuator endpoint: the lease and keeper, the generators with their counts, the
 * namespace's slot table from the store, and the decoding of an id.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * GET /actuator/cosid                        lease, generators, slot table
 * GET /actuator/cosid/918610180118151168     time, slot and sequence of an id (default layout)
 * GET /actuator/cosid/order/0B3kq7Tz0aA      the same with generator order's layout, radix-62 text
 * }</pre>
 */
@Endpoint(id = "cosid")
public class CosIdEndpoint {

    private final CosIdRuntime runtime;

    /**
     * Creates the endpoint.
     *
     * @param runtime the runtime it shows
     */
    public CosIdEndpoint(CosIdRuntime runtime) {
        this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    /**
     * Shows the lease, the generators and the slot table.
     *
     * @return the report
     */
    @ReadOperation
    public Map<String, Object> report() {
        Map<String, Object> report = new LinkedHashMap<>();
        CosIdHealth health = CosIdHealth.of(runtime);
        report.put("canIssue", health.up());
        if (!health.up()) {
            report.put("reason", health.reason());
        }
        report.put("lease", lease(runtime.lease()));
        var status = runtime.status();
        Map<String, Object> keeper = new LinkedHashMap<>();
        keeper.put("state", status.state().name());
        keeper.put("owner", status.owner().key());
        keeper.put("incarnation", status.owner().incarnation().toString());
        keeper.put("static", status.staticSlot());
        keeper.put("windowRemainingMillis", status.windowRemainingMillis());
        keeper.put("clockSkewMillis", status.clockSkewMillis());
        keeper.put("nextStepAt", status.nextStepAt() < 0 ? null : Instant.ofEpochMilli(status.nextStepAt()).toString());
        keeper.put("lastAcquireMillis", status.lastAcquireMillis());
        keeper.put("renewals", status.renewals());
        keeper.put("renewalFailures", status.renewalFailures());
        keeper.put("leasesLost", status.leasesLost());
        report.put("keeper", keeper);
        Map<String, Object> generators = new LinkedHashMap<>();
        for (SnowflakeId generator : runtime.generators()) {
            GeneratorStats stats = generator.stats();
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("layout", layout(generator.layout()));
            one.put("issued", stats.issued());
            Map<String, Long> refused = new LinkedHashMap<>();
            stats.refusals().forEach((reason, count) -> refused.put(reason.name().toLowerCase(Locale.ROOT), count));
            one.put("refused", refused);
            one.put("lastIssued", stats.lastIssuedMillis() < 0 ? null
                    : Instant.ofEpochMilli(stats.lastIssuedMillis()).toString());
            generators.put(generator.name(), one);
        }
        report.put("generators", generators);
        report.put("slotTable", slotTable());
        return report;
    }

    /**
     * Decodes an id of the default layout.
     *
     * @param id the id, in decimal or in its 11-digit radix-62 form
     * @return its time, slot and sequence
     */
    @ReadOperation
    public Map<String, Object> decode(@Selector String id) {
        return decode(IdLayout.MILLISECOND, "(default layout)", id);
    }

    /**
     * Decodes an id of a generator's layout.
     *
     * @param generator the generator's name
     * @param id the id, in decimal or in its 11-digit radix-62 form
     * @return its time, slot and sequence
     */
    @ReadOperation
    public Map<String, Object> decode(@Selector String generator, @Selector String id) {
        SnowflakeId found = runtime.generators().stream().filter(g -> g.name().equals(generator)).findFirst()
                .orElseThrow(() -> new InvalidEndpointRequestException("no generator '" + generator + "'; known: "
                        + runtime.generators().stream().map(SnowflakeId::name).toList(), "unknown generator"));
        return decode(found.layout(), generator, id);
    }

    private static Map<String, Object> decode(IdLayout layout, String generator, String text) {
        long id;
        try {
            id = text.chars().allMatch(Character::isDigit) ? Long.parseLong(text) : IdStrings.parseRadix62(text);
            if (id > layout.maxId()) {
                throw new IllegalArgumentException("id " + id + " exceeds the layout's largest id " + layout.maxId());
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException("'" + text + "' is not an id: " + e.getMessage(), "not an id");
        }
        IdParts parts = layout.parse(id);
        Map<String, Object> decoded = new LinkedHashMap<>();
        decoded.put("id", Long.toString(id));
        decoded.put("radix62", IdStrings.toRadix62(id));
        decoded.put("generator", generator);
        decoded.put("time", Instant.ofEpochMilli(parts.timestampMillis()).toString());
        decoded.put("timestampMillis", parts.timestampMillis());
        decoded.put("slot", parts.slot());
        decoded.put("sequence", parts.sequence());
        decoded.put("friendly", layout.friendly(id));
        return decoded;
    }

    private Object slotTable() {
        SlotTable table;
        try {
            table = runtime.slotTable();
        } catch (RuntimeException e) {
            return Map.of("error", String.valueOf(e.getMessage()));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("storeNow", Instant.ofEpochMilli(table.storeNow()).toString());
        List<Map<String, Object>> slots = table.slots().stream().map(record -> slot(record, table.storeNow())).toList();
        out.put("slots", slots);
        return out;
    }

    private static Map<String, Object> slot(SlotRecord record, long storeNow) {
        Map<String, Object> slot = new LinkedHashMap<>();
        slot.put("slot", record.slot());
        slot.put("owner", record.holder().map(owner -> owner.key()).orElse(null));
        slot.put("lastOwner", record.lastOwnerKey());
        slot.put("fence", record.fence());
        slot.put("free", record.freeAt(storeNow));
        slot.put("expiresInMillis", record.expiresAt() - storeNow);
        slot.put("floor", record.floor());
        slot.put("ceiling", record.ceiling());
        return slot;
    }

    private static Map<String, Object> lease(SlotLease lease) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("namespace", lease.namespace());
        out.put("slot", lease.slot());
        out.put("fence", lease.fence());
        out.put("floor", lease.floor());
        out.put("ceiling", lease.ceiling());
        out.put("expiresAt", Instant.ofEpochMilli(lease.expiresAt()).toString());
        return out;
    }

    private static Map<String, Object> layout(IdLayout layout) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("epoch", Instant.ofEpochMilli(layout.epochMillis()).toString());
        out.put("unitMillis", layout.unitMillis());
        out.put("timestampBits", layout.timestampBits());
        out.put("slotBits", layout.slotBits());
        out.put("sequenceBits", layout.sequenceBits());
        return out;
    }
}
