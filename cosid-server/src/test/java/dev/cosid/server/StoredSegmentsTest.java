package dev.cosid.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cosid.CosIdRuntime;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import dev.cosid.testkit.BadNames;
import dev.cosid.time.Clock;
import dev.cosid.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server built without {@code segments(...)} serves the counters the store already holds, as Leaf serves
 * every {@code biz_tag} of its table, picks up a counter created after its start, and never creates one.
 */
class StoredSegmentsTest {

    private static final String NS = "leaf";
    /** A counter made before the rule for names: the store lists it, nothing can serve it. */
    private static final String LEGACY = "order items";

    private final InMemoryLeaseStore memory = new InMemoryLeaseStore();
    private final WatchedStore store = new WatchedStore(memory);
    private final ManualClock clock = new ManualClock(Clock.system().nowMillis());
    private CosIdRuntime runtime;
    private CosIdServer server;
    private Http http;

    @BeforeEach
    void start() {
        runtime = CosIdRuntime.builder().namespace(NS).store(store).ownerKey("stored").start();
        memory.raiseSegment(NS, "invoice", 1000);
        memory.raiseSegment(NS, "ticket", 5);
        server = CosIdServer.builder().port(0).clock(clock).start(runtime);
        http = new Http(server.uri());
    }

    @AfterEach
    void stop() {
        server.close();
        runtime.close();
    }

    @Test
    void theCountersInTheStoreAreServedWithoutNamingThem() {
        assertEquals(List.of("invoice", "ticket"), server.segmentNames());
        assertTrue(store.reserved.isEmpty(), "no range is reserved before a request asks: " + store.reserved);
        Http.Reply leaf = http.get("/api/segment/get/invoice");
        assertEquals(200, leaf.status(), leaf.body());
        assertEquals("1001", leaf.body(), "ids continue above the stored counter");
        assertEquals("{\"name\":\"ticket\",\"ids\":[\"6\",\"7\"]}", http.get("/v1/segments/ticket?count=2").body());
        assertEquals("1002", http.get("/api/segment/get/invoice").body());
        assertEquals(java.util.Set.of("invoice", "ticket"), java.util.Set.copyOf(store.reserved),
                "ranges of the counters used, and of no other");
    }

    @Test
    void aNameTheStoreDoesNotHoldAnswers404AndCreatesNoCounter() {
        int listings = store.listings.get();
        Http.Reply unknown = http.get("/v1/segments/nope");
        assertEquals(404, unknown.status(), unknown.body());
        assertEquals("unknown_segment", unknown.json().get("error").asText());
        assertEquals("segment 'nope' is not served here: namespace 'leaf' has no such counter in the store, and a "
                + "request never creates one", unknown.json().get("message").asText());
        assertEquals(404, http.get("/api/segment/get/nope").status());
        assertEquals(listings, store.listings.get(), "the store was listed at the start, less than a second ago");
        clock.advance(Duration.ofSeconds(1));
        assertEquals(404, http.get("/api/segment/get/nope").status());
        assertEquals(404, http.get("/api/segment/get/nope").status());
        assertEquals(listings + 1, store.listings.get(), "listed again once a second had passed, and only once");
        assertFalse(memory.segments(NS).containsKey("nope"), "no counter was created: " + memory.segments(NS));
        assertTrue(store.reserved.isEmpty(), "nothing was reserved: " + store.reserved);
    }

    @Test
    void aCounterCreatedAfterTheStartIsServedOnceARequestNamesIt() {
        memory.raiseSegment(NS, "late", 41);
        clock.advance(Duration.ofSeconds(1));
        Http.Reply late = http.get("/api/segment/get/late");
        assertEquals(200, late.status(), late.body());
        assertEquals("42", late.body());
        assertEquals(List.of("invoice", "late", "ticket"), server.segmentNames());
    }

    @Test
    void aCounterWhoseNameBreaksTheRuleIsListedButNeverServed() {
        JsonNode listed = http.get("/v1/segments").json().get("segments");
        assertEquals(3, listed.size(), listed.toString());
        assertEquals("invoice", listed.get(0).get("name").asText());
        assertTrue(listed.get(0).get("served").asBoolean());
        assertEquals(LEGACY, listed.get(1).get("name").asText());
        assertFalse(listed.get(1).get("served").asBoolean(), listed.toString());
        assertTrue(listed.get(2).get("served").asBoolean(), listed.toString());
        Http.Reply refused = http.get("/v1/segments/order%20items");
        assertEquals(400, refused.status(), refused.body());
        assertEquals(BadNames.refusal(LEGACY), refused.json().get("message").asText());
        assertTrue(store.reserved.isEmpty(), "nothing was reserved: " + store.reserved);
    }

    @Test
    void namedCountersNarrowWhatIsServed() {
        try (CosIdServer narrowed = CosIdServer.builder().port(0).clock(clock).segments(List.of("invoice"))
                .start(runtime)) {
            Http client = new Http(narrowed.uri());
            assertEquals("1001", client.get("/api/segment/get/invoice").body());
            Http.Reply ticket = client.get("/api/segment/get/ticket");
            assertEquals(404, ticket.status());
            assertEquals("segment 'ticket' is not served here; served: invoice", ticket.json().get("message").asText());
            assertEquals(List.of("invoice"), narrowed.segmentNames());
        }
    }

    /** The in-memory store, with a counter of a name made before the rule, counting listings and reservations. */
    private static final class WatchedStore implements LeaseStore {
        private final InMemoryLeaseStore delegate;
        final AtomicInteger listings = new AtomicInteger();
        final List<String> reserved = new CopyOnWriteArrayList<>();

        WatchedStore(InMemoryLeaseStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public SortedMap<String, Long> segments(String namespace) {
            listings.incrementAndGet();
            SortedMap<String, Long> counters = new TreeMap<>(delegate.segments(namespace));
            counters.put(LEGACY, 7L);
            return counters;
        }

        @Override
        public SegmentRange reserveSegment(String namespace, String name, long size) {
            reserved.add(name);
            return delegate.reserveSegment(namespace, name, size);
        }

        @Override
        public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
            return delegate.returnSegmentTail(range, lastIssued);
        }

        @Override
        public long raiseSegment(String namespace, String name, long atLeast) {
            return delegate.raiseSegment(namespace, name, atLeast);
        }

        @Override
        public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
            return delegate.register(namespace, proposed);
        }

        @Override
        public Optional<NamespaceRecord> namespace(String namespace) {
            return delegate.namespace(namespace);
        }

        @Override
        public dev.cosid.lease.LayoutRecord registerLayout(String namespace, String name,
                                                           dev.cosid.lease.LayoutRecord proposed) {
            return delegate.registerLayout(namespace, name, proposed);
        }

        @Override
        public SlotTable read(String namespace) {
            return delegate.read(namespace);
        }

        @Override
        public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
            return delegate.acquire(namespace, slot, owner, terms);
        }

        @Override
        public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
            return delegate.renew(lease, terms);
        }

        @Override
        public boolean release(SlotLease lease, long lastIssuedMillis) {
            return delegate.release(lease, lastIssuedMillis);
        }

        @Override
        public String describe() {
            return "watched " + delegate.describe();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
