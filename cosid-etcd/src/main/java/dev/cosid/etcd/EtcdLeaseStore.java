package dev.cosid.etcd;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.LeaseTransitions;
import dev.cosid.lease.Names;
import dev.cosid.lease.NamespaceLimits;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotRecordCodec;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.Clock;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * A lease store in etcd: one key per slot, changed only by a transaction whose compare is the slot
 * key's mod revision (0 for a key that does not exist yet) and value, and the namespace key's
 * existence. The value is compared too because a cluster that lost its data counts revisions from 1
 * again: a revision this store remembers may then name another record.
 *
 * <p>The store clock is this process's clock ({@link Clock#system()}): etcd answers carry no server
 * time. That stays safe because windows, not clocks, keep holders apart: a new holder's floor is the
 * previous holder's ceiling, and a stale holder can no longer raise its ceiling because its
 * transaction's revision compare fails. A wrong clock decides when a slot counts as expired and where
 * windows lie, never whether two holders share a millisecond of one slot; {@code docs/stores.md}
 * says what it can cost.
 *
 * <p>An operation is one transaction when the slot's last revision is known to this store (it
 * remembers the revisions it read and wrote); otherwise the failed compare's else branch returns the
 * current record and a second transaction applies the change.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379/ids");
 * }</pre>
 */
public final class EtcdLeaseStore implements LeaseStore {

    /** How long one etcd call may take before it fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /**
     * The shortest bound of a call: a transaction is a quorum write, which a loaded machine takes hundreds of ms
     * for; a sixth of a short ttl would fail it while the cluster is healthy.
     */
    static final Duration MIN_BOUND = Duration.ofSeconds(1);
    /** How long the first call may take: it also connects, and in a fresh JVM loads the gRPC client. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
    private static final int REVISION_RETRIES = 8;

    /**
     * How long one call may take: {@link #TIMEOUT} until a keeper's terms arrive, then a sixth of their ttl and at
     * least {@link #MIN_BOUND}, so a member cut off from its quorum does not hold a keeper past ttl/3 (for a ttl of
     * 3 s and more), nor its renewals past the lease.
     */
    private volatile long boundMillis = TIMEOUT.toMillis();

    private final Client client;
    private final KV kv;
    /** {@code /PREFIX/cosid/}, or {@code /cosid/} without a prefix: where every key of CosId lives. */
    private final String top;
    private final String root;
    private final String description;
    private final Clock clock;
    private final NamespaceLimits limits = new NamespaceLimits();
    /** The last record and mod revision seen per slot key; only a guess, checked by every write's compare. */
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicLong roundTrips = new AtomicLong();

    /** A slot record as last seen, or {@code null} with revision 0 for a key seen missing. */
    private record Seen(SlotRecord record, long modRevision) {
        static final Seen ABSENT = new Seen(null, 0);
    }

    /**
     * Connects.
     *
     * @param client a client this store owns from now on
     * @param prefix the key prefix every key lives under, such as {@code myapp}, or empty
     * @param description the URL with its secrets masked, for messages
     * @param clock the clock that plays the store clock
     */
    EtcdLeaseStore(Client client, String prefix, String description, Clock clock) {
        this.client = client;
        this.kv = client.getKVClient();
        this.top = (prefix.isEmpty() ? "" : "/" + prefix) + "/cosid/";
        this.root = top + "namespaces/";
        this.description = description;
        this.clock = clock;
        try {
            // a first round trip, so an unreachable cluster fails here and not at the first lease
            await("reach the cluster", kv.get(key(root)), CONNECT_TIMEOUT);
        } catch (LeaseStoreException e) {
            client.close();
            throw new LeaseStoreException("cannot reach " + description + " within " + CONNECT_TIMEOUT.toMillis()
                    + " ms: " + e.getMessage(), e);
        }
    }

    private String namespaceKey(String namespace) {
        return root + namespace;
    }

    private String slotsPrefix(String namespace) {
        return root + namespace + "/slots/";
    }

    private String slotKey(String namespace, int slot) {
        return slotsPrefix(namespace) + slot;
    }

    /** A key for an id space: the URL-encoded name, so no name can reach outside its namespace's keys. */
    private String layoutKey(String namespace, String name) {
        return root + namespace + "/layouts/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        Namespaces.require(namespace);
        String text = proposed.limit() + "," + proposed.toleranceMillis();
        String stored = putIfAbsent("register namespace '" + namespace + "'", namespaceKey(namespace), text);
        NamespaceRecord record = parseNamespace(namespace, stored);
        limits.remember(namespace, record);
        return record;
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        Namespaces.require(namespace);
        GetResponse response = await("read namespace '" + namespace + "'", kv.get(key(namespaceKey(namespace))));
        return response.getKvs().isEmpty() ? Optional.empty()
                : Optional.of(parseNamespace(namespace, text(response.getKvs().get(0))));
    }

    private NamespaceRecord parseNamespace(String namespace, String text) {
        String[] fields = text.split(",");
        try {
            return new NamespaceRecord(Integer.parseInt(fields[0]), Long.parseLong(fields[1]));
        } catch (RuntimeException e) {
            throw new LeaseStoreException("the record of namespace '" + namespace + "' in " + description
                    + " is corrupt: '" + text + "'");
        }
    }

    @Override
    public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        Namespaces.require(namespace);
        Names.require(name);
        String stored = putIfAbsent("record the layout of id space '" + name + "' of namespace '" + namespace + "'",
                layoutKey(namespace, name), proposed.text());
        try {
            return LayoutRecord.parse(stored);
        } catch (IllegalArgumentException e) {
            throw new LeaseStoreException("the layout of id space '" + name + "' of namespace '" + namespace + "' in "
                    + description + " is corrupt: " + e.getMessage());
        }
    }

    /** Writes a key that does not exist, or reads the one that does: one transaction. */
    private String putIfAbsent(String what, String key, String value) {
        ByteSequence k = key(key);
        TxnResponse response = await(what, kv.txn()
                .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(k, bytes(value), PutOption.DEFAULT))
                .Else(Op.get(k, GetOption.DEFAULT))
                .commit());
        if (response.isSucceeded()) {
            return value;
        }
        return text(response.getGetResponses().get(0).getKvs().get(0));
    }

    @Override
    public SlotTable read(String namespace) {
        Namespaces.require(namespace);
        String prefix = slotsPrefix(namespace);
        GetResponse response = await("read the slots of namespace '" + namespace + "'",
                kv.get(key(prefix), GetOption.builder().isPrefix(true).build()));
        long now = clock.nowMillis();
        List<SlotRecord> records = new ArrayList<>();
        for (KeyValue entry : response.getKvs()) {
            String key = entry.getKey().toString(StandardCharsets.UTF_8);
            int slot;
            try {
                slot = Integer.parseInt(key.substring(prefix.length()));
            } catch (NumberFormatException e) {
                throw new LeaseStoreException("key '" + key + "' in " + description + " is not a slot of namespace '"
                        + namespace + "'");
            }
            SlotRecord record = SlotRecordCodec.decode(slot, text(entry));
            records.add(record);
            seen.put(key, new Seen(record, entry.getModRevision()));
        }
        records.sort(Comparator.comparingInt(SlotRecord::slot));
        return new SlotTable(namespace, now, records);
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        limits.requireSlot(namespace, slot, this::namespace);
        boundMillis = Math.max(MIN_BOUND.toMillis(), terms.callBoundMillis(TIMEOUT.toMillis()));
        return update("acquire slot " + slot + " of namespace '" + namespace + "'", namespace, slot,
                now -> LeaseTransitions.fresh(slot, now, terms),
                (current, now) -> LeaseTransitions.acquire(current, owner, now, terms));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        boundMillis = Math.max(MIN_BOUND.toMillis(), terms.callBoundMillis(TIMEOUT.toMillis()));
        return update("renew " + lease, lease.namespace(), lease.slot(), null,
                (current, now) -> LeaseTransitions.renew(current, lease.owner(), lease.fence(), now, terms));
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        return update("release " + lease, lease.namespace(), lease.slot(), null,
                (current, now) -> LeaseTransitions.release(current, lease.owner(), lease.fence(), lastIssuedMillis))
                .isPresent();
    }

    /**
     * Applies a transition with one transaction compared on the slot key's mod revision and on the
     * namespace key's existence. The record it starts from is the last one seen, a guess: a failed
     * compare returns the current record and namespace in its else branch, and the transition runs
     * again on them. A transition that refuses a guessed record is checked against a fresh read.
     *
     * @param absent the record of a slot without a key, or {@code null} when a missing key means no lease
     */
    private Optional<SlotLease> update(String what, String namespace, int slot, LongFunction<SlotRecord> absent,
                                       Transition transition) {
        String slotKey = slotKey(namespace, slot);
        ByteSequence k = key(slotKey);
        ByteSequence ns = key(namespaceKey(namespace));
        Seen last = seen.getOrDefault(slotKey, Seen.ABSENT);
        boolean fresh = false;
        for (int attempt = 0; attempt < REVISION_RETRIES; attempt++) {
            long now = clock.nowMillis();
            SlotRecord base = last.record() != null ? last.record() : absent == null ? null : absent.apply(now);
            Optional<SlotRecord> next = base == null ? Optional.empty() : transition.apply(base, now);
            if (next.isEmpty()) {
                if (fresh) {
                    return Optional.empty();
                }
                last = fetch(what, slotKey);
                fresh = true;
                continue;
            }
            // the revision alone is not enough: a cluster that lost its data counts revisions from 1 again,
            // and the record this transition starts from must be the one the key holds, so compare both
            Cmp guess = last.record() == null ? new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                    : new Cmp(k, Cmp.Op.EQUAL, CmpTarget.value(bytes(SlotRecordCodec.encode(last.record()))));
            TxnResponse response = await(what, kv.txn()
                    .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(last.modRevision())), guess,
                            new Cmp(ns, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                    .Then(Op.put(k, bytes(SlotRecordCodec.encode(next.get())), PutOption.DEFAULT))
                    .Else(Op.get(k, GetOption.DEFAULT), Op.get(ns, GetOption.DEFAULT))
                    .commit());
            if (response.isSucceeded()) {
                seen.put(slotKey, new Seen(next.get(), response.getHeader().getRevision()));
                // only an acquire passes absent, and only it can take a slot over from an expired holder
                boolean takenOver = absent != null && last.record() != null && LeaseTransitions.takesOver(last.record());
                return Optional.of(next.get().toLease(namespace, now, takenOver));
            }
            if (response.getGetResponses().get(1).getKvs().isEmpty()) {
                seen.remove(slotKey);
                if (absent == null) {
                    return Optional.empty(); // a renewal or release in a namespace that vanished finds no lease
                }
                throw new LeaseStoreException("cannot " + what + " in " + description + ": namespace '" + namespace
                        + "' is not registered");
            }
            last = seen(slotKey, slot, response.getGetResponses().get(0));
            fresh = true;
        }
        throw new LeaseStoreException("slot " + slot + " of namespace '" + namespace + "' in " + description
                + " kept changing during " + REVISION_RETRIES + " attempts");
    }

    private Seen fetch(String what, String slotKey) {
        int slot = Integer.parseInt(slotKey.substring(slotKey.lastIndexOf('/') + 1));
        return seen(slotKey, slot, await(what, kv.get(key(slotKey))));
    }

    private Seen seen(String slotKey, int slot, GetResponse response) {
        Seen current = response.getKvs().isEmpty() ? Seen.ABSENT : new Seen(
                SlotRecordCodec.decode(slot, text(response.getKvs().get(0))), response.getKvs().get(0).getModRevision());
        seen.put(slotKey, current);
        return current;
    }

    @FunctionalInterface
    private interface Transition {
        Optional<SlotRecord> apply(SlotRecord current, long now);
    }

    /**
     * Waits for one etcd call (one round trip) within the bound: {@link #TIMEOUT}, or a sixth of the ttl.
     *
     * @param what the operation, for messages
     * @param call the call
     * @return its answer
     */
    <T> T await(String what, CompletableFuture<T> call) {
        return await(what, call, Duration.ofMillis(boundMillis));
    }

    /** Returns the key-value client, for the leadership transport, which waits for each call with {@link #await}. */
    KV kv() {
        return kv;
    }

    /** The cluster's leases, whose timers the etcd leader runs. */
    io.etcd.jetcd.Lease leases() {
        return client.getLeaseClient();
    }

    /** Returns {@code /PREFIX/cosid/} (or {@code /cosid/}): the leadership transport keeps its keys beside the ids'. */
    String top() {
        return top;
    }

    private <T> T await(String what, CompletableFuture<T> call, Duration bound) {
        roundTrips.incrementAndGet();
        try {
            return call.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            call.cancel(true);
            Thread.currentThread().interrupt();
            throw new LeaseStoreException("interrupted while trying to " + what + " in " + description, e);
        } catch (TimeoutException e) {
            call.cancel(true);
            throw new LeaseStoreException("cannot " + what + " in " + description + ": no answer within "
                    + bound.toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new LeaseStoreException("cannot " + what + " in " + description + ": "
                    + LeaseStores.redact(String.valueOf(cause.getMessage())), cause);
        }
    }

    /** Returns how many etcd calls (round trips) this store has made: for measurements and tests. */
    public long roundTrips() {
        return roundTrips.get();
    }

    private static ByteSequence key(String key) {
        return ByteSequence.from(key, StandardCharsets.UTF_8);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private static String text(KeyValue entry) {
        return entry.getValue().toString(StandardCharsets.UTF_8);
    }

    /** How often a segment transaction that lost a race to another writer runs again on the value it found. */
    private static final int SEGMENT_ATTEMPTS = 1_000;

    /** The last counter value and mod revision seen per segment key, or a null value with revision 0 for none. */
    private final Map<String, SeenCounter> seenCounters = new ConcurrentHashMap<>();

    private record SeenCounter(Long value, long modRevision) {
        static final SeenCounter ABSENT = new SeenCounter(null, 0);
    }

    private String segmentsPrefix(String namespace) {
        return root + namespace + "/segments/";
    }

    /** A key for a segment counter: the URL-encoded name, as for layouts. */
    private String segmentKey(String namespace, String name) {
        return segmentsPrefix(namespace) + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    @Override
    public SegmentRange reserveSegment(String namespace, String name, long size) {
        Namespaces.requireSegment(namespace, name);
        if (size < 1) {
            throw new IllegalArgumentException("a segment reservation takes at least 1 id, not " + size);
        }
        long last = updateSegment("reserve " + size + " ids of segment '" + name + "' of namespace '" + namespace
                + "'", namespace, name, current -> Math.addExact(current, size));
        return new SegmentRange(namespace, name, last - size + 1, last);
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        Namespaces.requireSegment(namespace, name);
        if (atLeast < 0) {
            throw new IllegalArgumentException("a segment counter is raised to 0 or more, not " + atLeast);
        }
        return updateSegment("raise segment '" + name + "' of namespace '" + namespace + "' to " + atLeast,
                namespace, name, current -> Math.max(current, atLeast));
    }

    /**
     * Moves a counter with one transaction compared on the counter key's mod revision and value (as last
     * seen) and on the namespace key's existence; a failed compare returns both keys, and the change runs
     * again on the value found. A transaction whose answer was lost leaves a value this store did not see,
     * so the next attempt's compare fails and reserves afresh: the lost range is wasted, never reissued.
     */
    private long updateSegment(String what, String namespace, String name, java.util.function.LongUnaryOperator change) {
        String segmentKey = segmentKey(namespace, name);
        ByteSequence k = key(segmentKey);
        ByteSequence ns = key(namespaceKey(namespace));
        SeenCounter last = seenCounters.getOrDefault(segmentKey, SeenCounter.ABSENT);
        boolean fresh = false;
        for (int attempt = 0; attempt < SEGMENT_ATTEMPTS; attempt++) {
            long next;
            try {
                next = change.applyAsLong(last.value() == null ? 0 : last.value());
            } catch (ArithmeticException full) {
                if (!fresh) {
                    // the value remembered may be stale: judge the current one
                    last = seenCounter(namespace, name, segmentKey, await(what, kv.get(k)));
                    fresh = true;
                    continue;
                }
                throw new LeaseStoreException("segment '" + name + "' of namespace '" + namespace + "' stands at "
                        + last.value() + ": the reservation would pass the largest id " + Long.MAX_VALUE);
            }
            Cmp guess = last.value() == null ? new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                    : new Cmp(k, Cmp.Op.EQUAL, CmpTarget.value(bytes(Long.toString(last.value()))));
            TxnResponse response = await(what, kv.txn()
                    .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(last.modRevision())), guess,
                            new Cmp(ns, Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                    .Then(Op.put(k, bytes(Long.toString(next)), PutOption.DEFAULT))
                    .Else(Op.get(k, GetOption.DEFAULT), Op.get(ns, GetOption.DEFAULT))
                    .commit());
            if (response.isSucceeded()) {
                seenCounters.put(segmentKey, new SeenCounter(next, response.getHeader().getRevision()));
                return next;
            }
            if (response.getGetResponses().get(1).getKvs().isEmpty()) {
                seenCounters.remove(segmentKey);
                throw limits.missing(namespace, description);
            }
            last = seenCounter(namespace, name, segmentKey, response.getGetResponses().get(0));
            fresh = true;
        }
        throw new LeaseStoreException("segment '" + name + "' of namespace '" + namespace + "' in " + description
                + " kept changing during " + SEGMENT_ATTEMPTS + " attempts");
    }

    private SeenCounter seenCounter(String namespace, String name, String segmentKey, GetResponse response) {
        SeenCounter current = response.getKvs().isEmpty() ? SeenCounter.ABSENT
                : new SeenCounter(parseCounter(namespace, name, text(response.getKvs().get(0))),
                        response.getKvs().get(0).getModRevision());
        seenCounters.put(segmentKey, current);
        return current;
    }

    private long parseCounter(String namespace, String name, String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new LeaseStoreException("the counter of segment '" + name + "' of namespace '" + namespace + "' in "
                    + description + " is corrupt: '" + text + "'");
        }
    }

    @Override
    public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        Namespaces.requireSegment(range.namespace(), range.name());
        if (lastIssued < range.first() - 1 || lastIssued > range.last()) {
            throw new IllegalArgumentException("last issued id " + lastIssued + " lies outside " + range);
        }
        String segmentKey = segmentKey(range.namespace(), range.name());
        ByteSequence k = key(segmentKey);
        TxnResponse response = await("return the tail of " + range, kv.txn()
                .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.value(bytes(Long.toString(range.last())))),
                        new Cmp(key(namespaceKey(range.namespace())), Cmp.Op.GREATER, CmpTarget.createRevision(0)))
                .Then(Op.put(k, bytes(Long.toString(lastIssued)), PutOption.DEFAULT))
                .commit());
        if (response.isSucceeded()) {
            seenCounters.put(segmentKey, new SeenCounter(lastIssued, response.getHeader().getRevision()));
        }
        return response.isSucceeded();
    }

    @Override
    public java.util.SortedMap<String, Long> segments(String namespace) {
        Namespaces.require(namespace);
        String prefix = segmentsPrefix(namespace);
        GetResponse response = await("read the segments of namespace '" + namespace + "'",
                kv.get(key(prefix), GetOption.builder().isPrefix(true).build()));
        java.util.SortedMap<String, Long> counters = new java.util.TreeMap<>();
        for (KeyValue entry : response.getKvs()) {
            String name = java.net.URLDecoder.decode(
                    entry.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()), StandardCharsets.UTF_8);
            counters.put(name, parseCounter(namespace, name, text(entry)));
        }
        return counters;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        client.close();
    }

    @Override
    public String toString() {
        return "EtcdLeaseStore[" + description + "]";
    }
}
