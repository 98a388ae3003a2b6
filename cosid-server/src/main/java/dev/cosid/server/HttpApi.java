package dev.cosid.server;

import dev.cosid.CosIdRuntime;
import dev.cosid.GeneratorStats;
import dev.cosid.IdLayout;
import dev.cosid.IdParts;
import dev.cosid.IdStrings;
import dev.cosid.IdUnavailableException;
import dev.cosid.RuntimeStatus;
import dev.cosid.SegmentId;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.Names;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.Clock;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routes of the id service, apart from the transport: a method, a URI and an
 * {@code Authorization} header in, a {@link Response} out. Every refusal is a JSON error; nothing
 * thrown here reaches a client as a stack trace.
 */
final class HttpApi {

    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final Set<String> ISSUE_PARAMETERS = Set.of("count", "format");
    private static final Set<String> DECODE_PARAMETERS = Set.of("format", "layout");
    private static final Set<String> NONE = Set.of();
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /** How often a request for a counter not served yet may read the store's list of counters again. */
    private static final long LISTING_INTERVAL_NANOS = 1_000_000_000L;

    private final CosIdRuntime runtime;
    private final IdLayout layout;
    private final Map<String, SnowflakeId> generators;
    private final Map<String, IdsBody> bodies;
    /** The segment generators made so far, by name; a store-wide server adds to it on first use. */
    private final ConcurrentHashMap<String, ServedSegment> segments = new ConcurrentHashMap<>();
    /** The counters named at start, in their order; null when the server serves the store's counters. */
    private final List<String> namedSegments;
    /** Why this server serves no stored counter (a static slot has no store); null when it has a store. */
    private final String noStore;
    /** The counters of the store that follow the rule of {@link Names}, as last listed; guarded by this. */
    private Set<String> storedSegments = Set.of();
    /** When the store's counters were last listed, by the clock's monotonic nanos; guarded by this. */
    private long listedAtNanos;
    /** Why the last listing failed, answered until the next one may run; null after a success. Guarded by this. */
    private String listingFailure;
    private final String defaultName;
    private final BearerToken token;
    private final PrometheusMeterRegistry registry;
    private final RateHistory history;
    private final Clock clock;
    private final byte[] page;

    HttpApi(CosIdRuntime runtime, IdLayout layout, List<String> names, List<String> segmentNames, BearerToken token,
            PrometheusMeterRegistry registry, RateHistory history, Clock clock) {
        this.runtime = runtime;
        this.layout = layout;
        this.token = token;
        this.registry = registry;
        this.history = history;
        this.clock = clock;
        Map<String, SnowflakeId> byName = new LinkedHashMap<>();
        Map<String, IdsBody> bodies = new LinkedHashMap<>();
        for (String name : names) {
            byName.put(name, runtime.snowflake(name, layout));
            bodies.put(name, new IdsBody(name));
        }
        this.generators = Map.copyOf(byName);
        this.bodies = Map.copyOf(bodies);
        this.namedSegments = segmentNames == null ? null : List.copyOf(segmentNames);
        String storeless = null;
        if (segmentNames != null) {
            // named counters reserve their first range now, and are created when missing: an operator named them
            for (String name : segmentNames) {
                segments.put(name, new ServedSegment(runtime.segment(name), new IdsBody(name)));
            }
        } else {
            try {
                storedSegments = servable(runtime.segmentCounters());
                listedAtNanos = clock.monotonicNanos();
            } catch (IllegalStateException staticSlot) {
                storeless = "the runtime has a static slot and no store, so no segment counters";
            }
        }
        this.noStore = storeless;
        this.defaultName = names.get(0);
        this.page = resource("status.html");
    }

    /** A segment generator served, with the bytes its answers start with. */
    private record ServedSegment(SegmentId ids, IdsBody body) {
    }

    /** The names of a store's counters that follow the rule of {@link Names}: only those can be served. */
    private static Set<String> servable(SortedMap<String, Long> counters) {
        return Set.copyOf(counters.keySet().stream().filter(Names::isValid).toList());
    }

    /**
     * Reports whether a request may wait on I/O (a store read or a counter's first range), so it must not
     * run on an event loop.
     */
    boolean blocking(String uri) {
        if (uri.startsWith("/v1/slots") || uri.equals("/v1/segments") || uri.startsWith("/v1/segments?")) {
            return true;
        }
        if (namedSegments != null || noStore != null
                || !(uri.startsWith("/v1/segments/") || uri.startsWith("/api/segment/get/"))) {
            return false;
        }
        // a counter of the store that no request used yet: its first range is reserved on the first one
        String path;
        try {
            path = new QueryStringDecoder(uri).path();
        } catch (IllegalArgumentException e) {
            return false; // answered 400 on the event loop
        }
        String name = path.substring(path.startsWith("/v1/segments/") ? "/v1/segments/".length()
                : "/api/segment/get/".length());
        return !segments.containsKey(name);
    }

    /** Returns the names of the segment counters served now, sorted. */
    List<String> segmentNames() {
        if (namedSegments != null) {
            return namedSegments.stream().sorted().toList();
        }
        synchronized (this) {
            return storedSegments.stream().sorted().toList();
        }
    }

    /** Answers one request; never throws. */
    Response handle(String method, String uri, String authorization) {
        try {
            return route(method, uri, authorization);
        } catch (ApiError e) {
            return Response.error(e);
        } catch (RuntimeException | Error e) {
            LOG.error("cosid server: {} {} failed", method, uri, e);
            return Response.error(new ApiError(500, "internal", "internal error; the server's log has the details"));
        }
    }

    private Response route(String method, String uri, String authorization) {
        QueryStringDecoder query;
        String path;
        try {
            query = new QueryStringDecoder(uri);
            path = query.path();
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "bad_request", "the request target '" + printable(uri) + "' does not parse: "
                    + e.getMessage());
        }
        if (path.equals("/")) {
            allow(method, "GET");
            parameters(query, NONE);
            return new Response(200, "text/html; charset=utf-8", page, Map.of());
        }
        if (path.equals("/health")) {
            allow(method, "GET");
            parameters(query, NONE);
            return health();
        }
        authorize(authorization);
        if (path.equals("/metrics")) {
            allow(method, "GET");
            parameters(query, NONE);
            return Response.text(200, PROMETHEUS_TEXT, registry.scrape());
        }
        if (path.equals("/v1/ids") || path.startsWith("/v1/ids/")) {
            allow(method, "GET", "POST");
            Map<String, String> parameters = parameters(query, ISSUE_PARAMETERS);
            String name = path.equals("/v1/ids") ? defaultName : path.substring("/v1/ids/".length());
            return issue(name, count(parameters), idFormat(parameters));
        }
        if (path.equals("/v1/segments")) {
            allow(method, "GET");
            parameters(query, NONE);
            return segmentCounters();
        }
        if (path.startsWith("/v1/segments/")) {
            allow(method, "GET", "POST");
            Map<String, String> parameters = parameters(query, ISSUE_PARAMETERS);
            int count = count(parameters);
            boolean radix62 = idFormat(parameters);
            ServedSegment segment = segment(path.substring("/v1/segments/".length()));
            return new Response(200, Response.JSON, segment.body().write(issue(segment.ids(), count), radix62),
                    Map.of());
        }
        if (path.startsWith("/v1/decode/")) {
            allow(method, "GET");
            return decode(path.substring("/v1/decode/".length()), parameters(query, DECODE_PARAMETERS));
        }
        if (path.equals("/v1/status")) {
            allow(method, "GET");
            parameters(query, NONE);
            return status();
        }
        if (path.equals("/v1/slots")) {
            allow(method, "GET");
            parameters(query, NONE);
            return slots();
        }
        // cosid-proxy-server's IdController: GET /ids[/{name}] answers a JSON number,
        // GET /ids/as-string[/{name}] the id as plain text
        if (path.equals("/ids/as-string") || path.startsWith("/ids/as-string/")) {
            allow(method, "GET");
            parameters(query, NONE);
            String name = path.equals("/ids/as-string") ? defaultName : path.substring("/ids/as-string/".length());
            return Response.text(200, "text/plain; charset=utf-8", Long.toString(one(name)));
        }
        if (path.equals("/ids") || path.startsWith("/ids/")) {
            allow(method, "GET");
            parameters(query, NONE);
            String name = path.equals("/ids") ? defaultName : path.substring("/ids/".length());
            return Response.json(200, Long.toString(one(name)));
        }
        // Leaf's LeafController: GET /api/segment/get/{key} answers the next id of the key's counter as a
        // bare decimal number; only the configured counters are served
        if (path.startsWith("/api/segment/get/")) {
            allow(method, "GET");
            parameters(query, NONE);
            SegmentId segment = segment(path.substring("/api/segment/get/".length())).ids();
            return Response.text(200, "text/plain; charset=utf-8", Long.toString(issue(segment, 1)[0]));
        }
        // Leaf's LeafController: GET /api/snowflake/get/{key} answers the id as a bare decimal number. Leaf's
        // snowflake ids ignore the key; here a key that names a served id space issues from it, any other
        // key from the first id space, so a Leaf client's keys need no configuration
        if (path.startsWith("/api/snowflake/get/") && path.length() > "/api/snowflake/get/".length()) {
            allow(method, "GET");
            parameters(query, NONE);
            String key = requireName(path.substring("/api/snowflake/get/".length()));
            return Response.text(200, "text/plain; charset=utf-8",
                    Long.toString(one(generators.containsKey(key) ? key : defaultName)));
        }
        throw new ApiError(404, "not_found", "no endpoint at '" + printable(path) + "'; see /v1/status, /v1/ids, "
                + "/v1/decode/{id}, /v1/slots, /v1/segments, /ids, /api/segment/get/{key}, /api/snowflake/get/{key}, "
                + "/health, /metrics");
    }

    private void authorize(String authorization) {
        if (token != null && !token.matches(authorization)) {
            throw new ApiError(401, "unauthorized", authorization == null
                    ? "this endpoint needs the header 'Authorization: Bearer TOKEN'"
                    : "the bearer token is wrong", Map.of("WWW-Authenticate", "Bearer realm=\"cosid\""));
        }
    }

    private static void allow(String method, String... allowed) {
        for (String m : allowed) {
            if (m.equals(method)) {
                return;
            }
        }
        String list = String.join(", ", allowed);
        throw new ApiError(405, "method_not_allowed", "method " + printable(method) + " is not allowed here; use "
                + list, Map.of("Allow", list));
    }

    private static Map<String, String> parameters(QueryStringDecoder query, Set<String> allowed) {
        Map<String, List<String>> given;
        try {
            given = query.parameters();
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "bad_request", "the query string does not parse: " + printable(e.getMessage()));
        }
        if (given.isEmpty()) {
            return Map.of();
        }
        Map<String, String> single = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> entry : given.entrySet()) {
            String name = entry.getKey();
            if (!allowed.contains(name)) {
                throw new ApiError(400, "unknown_parameter", "unknown parameter '" + printable(name) + "'; "
                        + (allowed.isEmpty() ? "this endpoint takes none" : "this endpoint takes "
                        + String.join(", ", allowed.stream().sorted().toList())));
            }
            if (entry.getValue().size() != 1) {
                throw new ApiError(400, "repeated_parameter", "parameter '" + name + "' is given "
                        + entry.getValue().size() + " times");
            }
            single.put(name, entry.getValue().get(0));
        }
        return single;
    }

    private static int count(Map<String, String> parameters) {
        String text = parameters.get("count");
        if (text == null) {
            return 1;
        }
        if (text.isEmpty() || text.length() > 9 || !digitsOnly(text)) {
            throw new ApiError(400, "bad_count", "count '" + printable(text) + "' is not a whole number from 1 to "
                    + CosIdServer.MAX_COUNT);
        }
        int count = Integer.parseInt(text);
        if (count < 1 || count > CosIdServer.MAX_COUNT) {
            throw new ApiError(400, "count_out_of_range", "count " + count + " is outside 1.." + CosIdServer.MAX_COUNT);
        }
        return count;
    }

    private static boolean idFormat(Map<String, String> parameters) {
        String format = parameters.getOrDefault("format", "decimal");
        return switch (format) {
            case "decimal" -> false;
            case "radix62" -> true;
            default -> throw new ApiError(400, "bad_format", "format '" + printable(format)
                    + "' is neither decimal nor radix62");
        };
    }

    /** Refuses a name that breaks the rule of {@link Names} with the rule's own message; nothing is created. */
    private static String requireName(String name) {
        try {
            return Names.require(name);
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "bad_name", e.getMessage());
        }
    }

    private SnowflakeId generator(String name) {
        requireName(name);
        SnowflakeId generator = generators.get(name);
        if (generator == null) {
            throw new ApiError(404, "unknown_id_space", "id space '" + printable(name) + "' is not served here; "
                    + "served: " + String.join(", ", generators.keySet().stream().sorted().toList()));
        }
        return generator;
    }

    private Response issue(String name, int count, boolean radix62) {
        SnowflakeId generator = generator(name);
        long[] ids = issue(generator, count);
        return new Response(200, Response.JSON, bodies.get(name).write(ids, radix62), Map.of());
    }

    private long one(String name) {
        return issue(generator(name), 1)[0];
    }

    /**
     * Issues ids, or answers 503 at once while no window covers now: the event loop never waits for a
     * renewal, and the generator's own check stays the one that keeps ids unique.
     */
    private long[] issue(SnowflakeId generator, int count) {
        SlotLease lease = runtime.lease();
        long now = clock.nowMillis();
        long unit = layout.unitOf(now);
        // under a lead, a floor up to maxLead past the clock (a release that handed on a led millisecond)
        // still lets the generator issue at once
        long ledUnit = layout.unitOf(now + runtime.maxLead().toMillis());
        if (layout.startOf(ledUnit) <= lease.floor() || layout.endOf(unit) > lease.ceiling()) {
            RuntimeStatus status = runtime.status();
            String problem = status.problem();
            throw unavailable(problem.isEmpty() ? "the window (" + lease.floor() + ", " + lease.ceiling()
                    + "] of slot " + lease.slot() + " does not hold the current " + layout.unitMillis() + " ms unit"
                    : problem);
        }
        try {
            return count == 1 ? new long[] {generator.nextId()} : generator.nextIds(count);
        } catch (IdUnavailableException e) {
            throw unavailable(e.getMessage());
        }
    }

    /**
     * Returns the served segment generator of a name. A server of named counters serves those alone; a
     * server of the store's counters serves a counter the store holds, reserving its first range on the
     * first request, and reads the store's list again (at most once a second) for a name it has not seen,
     * so a counter created after the start is served too. A request never creates a counter.
     */
    private ServedSegment segment(String name) {
        requireName(name);
        ServedSegment served = segments.get(name);
        if (served != null) {
            return served;
        }
        if (namedSegments != null) {
            throw new ApiError(404, "unknown_segment", "segment '" + name + "' is not served here; "
                    + (namedSegments.isEmpty() ? "this server serves none (./cosid serve --segments NAMES)"
                    : "served: " + String.join(", ", segmentNames())));
        }
        if (noStore != null) {
            throw new ApiError(404, "unknown_segment", "segment '" + name + "' is not served here: " + noStore);
        }
        if (!stored(name)) {
            throw new ApiError(404, "unknown_segment", "segment '" + name + "' is not served here: namespace '"
                    + runtime.namespace() + "' has no such counter in the store, and a request never creates one");
        }
        ServedSegment created;
        try {
            // the runtime hands out one generator per name, so a race between two first requests is harmless
            created = new ServedSegment(runtime.segment(name), new IdsBody(name));
        } catch (LeaseStoreException e) {
            throw unavailable("cannot reserve the first range of segment '" + name + "': " + e.getMessage());
        }
        ServedSegment earlier = segments.putIfAbsent(name, created);
        return earlier != null ? earlier : created;
    }

    /** Whether the store holds a counter of this name, listing the counters again at most once a second. */
    private synchronized boolean stored(String name) {
        if (storedSegments.contains(name)) {
            return true;
        }
        long now = clock.monotonicNanos();
        if (now - listedAtNanos < LISTING_INTERVAL_NANOS) {
            if (listingFailure != null) {
                throw unavailable(listingFailure);
            }
            return false;
        }
        listedAtNanos = now;
        try {
            storedSegments = servable(runtime.segmentCounters());
            listingFailure = null;
        } catch (LeaseStoreException e) {
            listingFailure = "cannot read the segment counters: " + e.getMessage();
            throw unavailable(listingFailure);
        }
        return storedSegments.contains(name);
    }

    /** Issues segment ids; a store that cannot hand out a range within max-wait answers 503. */
    private static long[] issue(SegmentId segment, int count) {
        try {
            return count == 1 ? new long[] {segment.nextId()} : segment.nextIds(count);
        } catch (IdUnavailableException e) {
            throw unavailable(e.getMessage());
        }
    }

    private Response segmentCounters() {
        java.util.SortedMap<String, Long> counters;
        try {
            counters = runtime.segmentCounters();
        } catch (LeaseStoreException | IllegalStateException | UnsupportedOperationException e) {
            throw unavailable("cannot read the segment counters: " + e.getMessage());
        }
        Json json = new Json(128 + counters.size() * 96).begin()
                .field("namespace", runtime.namespace())
                .beginArray("segments");
        for (Map.Entry<String, Long> counter : counters.entrySet()) {
            String name = counter.getKey();
            boolean served = namedSegments != null ? segments.containsKey(name) : noStore == null && Names.isValid(name);
            json.beginObject(null).field("name", name).field("lastReserved", counter.getValue())
                    .field("served", served).end();
        }
        return Response.json(200, json.endArray().end().toString());
    }

    private static ApiError unavailable(String message) {
        return new ApiError(503, "unavailable", message, Map.of("Retry-After", "1"));
    }

    private Response decode(String text, Map<String, String> parameters) {
        IdLayout decodeLayout = layout;
        String layoutName = parameters.get("layout");
        if (layoutName != null) {
            try {
                decodeLayout = IdLayout.preset(layoutName);
            } catch (IllegalArgumentException e) {
                throw new ApiError(400, "bad_layout", printable(e.getMessage()));
            }
        }
        long id;
        if (idFormat(parameters)) {
            try {
                id = IdStrings.parseRadix62(text);
            } catch (IllegalArgumentException e) {
                throw new ApiError(400, "bad_id", printable(e.getMessage()));
            }
        } else {
            if (text.isEmpty() || text.length() > 19 || !digitsOnly(text)) {
                throw new ApiError(400, "bad_id", "'" + printable(text) + "' is not a decimal id (0 to "
                        + Long.MAX_VALUE + ")");
            }
            try {
                id = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new ApiError(400, "bad_id", "id " + text + " is out of range: ids are at most " + Long.MAX_VALUE);
            }
        }
        IdParts parts;
        try {
            parts = decodeLayout.parse(id);
        } catch (IllegalArgumentException e) {
            throw new ApiError(400, "bad_id", e.getMessage());
        }
        String json = new Json(256).begin()
                .field("id", Long.toString(id))
                .field("radix62", IdStrings.toRadix62(id))
                .field("layout", layoutName(decodeLayout))
                .field("timestampMillis", parts.timestampMillis())
                .field("time", Instant.ofEpochMilli(parts.timestampMillis()).toString())
                .field("slot", parts.slot())
                .field("sequence", parts.sequence())
                .field("friendly", decodeLayout.friendly(id))
                .end().toString();
        return Response.json(200, json);
    }

    private Response health() {
        RuntimeStatus status = runtime.status();
        Json json = new Json(160).begin()
                .field("status", status.canIssue() ? "UP" : "DOWN")
                .field("namespace", status.namespace())
                .field("slot", status.lease().slot())
                .field("fence", status.lease().fence());
        if (status.canIssue()) {
            json.field("windowRemainingMillis", status.windowRemainingMillis());
        } else {
            json.field("problem", status.problem());
        }
        return Response.json(status.canIssue() ? 200 : 503, json.end().toString());
    }

    private Response status() {
        RuntimeStatus status = runtime.status();
        SlotLease lease = status.lease();
        Json json = new Json(1024 + history.rates().length * 12).begin()
                .field("namespace", status.namespace())
                .field("ownerKey", status.owner().key())
                .field("incarnation", status.owner().incarnation().toString())
                .field("state", status.state().name())
                .field("canIssue", status.canIssue())
                .field("problem", status.problem())
                .field("staticSlot", status.staticSlot())
                .field("layout", layoutName(layout))
                .field("slot", lease.slot())
                .field("slotLimit", runtime.slotLimit())
                .field("fence", lease.fence())
                .field("floor", lease.floor())
                .field("ceiling", lease.ceiling())
                .field("expiresAt", lease.expiresAt())
                .field("storeNow", lease.storeNow())
                .field("localNow", status.localNow())
                .field("windowRemainingMillis", status.windowRemainingMillis())
                .field("nextStepAt", status.nextStepAt())
                .field("nextStepInMillis", status.nextStepAt() < 0 ? -1 : status.nextStepAt() - status.localNow())
                .field("clockSkewMillis", status.clockSkewMillis())
                .field("lastAcquireMillis", status.lastAcquireMillis())
                .field("renewals", status.renewals())
                .field("renewalFailures", status.renewalFailures())
                .field("leasesLost", status.leasesLost())
                .field("layoutRunsOutAt", Instant.ofEpochMilli(status.layoutRunsOutAt()).toString())
                .field("runwaySeconds", status.runwayMillis() / 1000);
        long issued = 0;
        json.beginArray("generators");
        for (SnowflakeId generator : runtime.generators()) {
            GeneratorStats stats = generator.stats();
            issued += stats.issued();
            json.beginObject(null).field("name", stats.name()).field("layout", layoutName(stats.layout()))
                    .field("issued", stats.issued()).field("refused", stats.refusedTotal())
                    .field("lastIssuedMillis", stats.lastIssuedMillis()).end();
        }
        json.endArray().field("issued", issued);
        json.beginObject("rate").field("stepMillis", 1000).field("untilMillis", history.untilMillis())
                .beginArray("idsPerSecond");
        for (double rate : history.rates()) {
            json.element(Math.round(rate * 10) / 10.0);
        }
        json.endArray().end();
        return Response.json(200, json.end().toString());
    }

    private Response slots() {
        SlotTable table;
        try {
            table = runtime.slotTable();
        } catch (LeaseStoreException e) {
            throw unavailable("cannot read the slot table: " + e.getMessage());
        }
        Owner self = runtime.owner();
        Json json = new Json(256 + table.slots().size() * 256).begin()
                .field("namespace", table.namespace())
                .field("storeNow", table.storeNow())
                .field("slotLimit", runtime.slotLimit())
                .field("selfSlot", runtime.lease().slot())
                .beginArray("slots");
        for (SlotRecord record : table.slots()) {
            boolean free = record.freeAt(table.storeNow());
            json.beginObject(null).field("slot", record.slot());
            if (record.owner() == null) {
                json.nullField("ownerKey").nullField("incarnation");
            } else {
                json.field("ownerKey", record.owner().key())
                        .field("incarnation", record.owner().incarnation().toString());
            }
            json.field("lastOwnerKey", record.lastOwnerKey())
                    .field("state", record.owner() == null ? "free" : free ? "expired" : "held")
                    .field("self", self.equals(record.owner()))
                    .field("fence", record.fence())
                    .field("expiresAt", record.expiresAt())
                    .field("expiresInMillis", record.expiresAt() - table.storeNow())
                    .field("floor", record.floor())
                    .field("ceiling", record.ceiling())
                    .field("nextFloor", record.nextFloor())
                    .end();
        }
        return Response.json(200, json.endArray().end().toString());
    }

    private static String layoutName(IdLayout layout) {
        if (layout.equals(IdLayout.MILLISECOND)) {
            return "MILLISECOND";
        }
        if (layout.equals(IdLayout.SECOND)) {
            return "SECOND";
        }
        if (layout.equals(IdLayout.SAFE_JS_MILLISECOND)) {
            return "SAFE_JS_MILLISECOND";
        }
        if (layout.equals(IdLayout.SAFE_JS_SECOND)) {
            return "SAFE_JS_SECOND";
        }
        return layout.toString();
    }

    private static boolean digitsOnly(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** Keeps a client's text short and free of control characters before it goes into a message. */
    private static String printable(String text) {
        if (text == null) {
            return "";
        }
        String shown = text.length() > 80 ? text.substring(0, 80) + "..." : text;
        StringBuilder b = new StringBuilder(shown.length());
        shown.codePoints().forEach(c -> b.appendCodePoint(Character.isISOControl(c) ? '?' : c));
        return b.toString();
    }

    private static byte[] resource(String name) {
        try (InputStream in = HttpApi.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the jar lacks dev/cosid/server/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
