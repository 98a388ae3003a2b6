package dev.cosid.redis;

import dev.cosid.lease.LayoutRecord;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
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
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A lease store in Redis: each operation is one Lua script (one round trip) that reads
 * {@code TIME}, checks the condition and writes the slot record. All keys of a namespace carry the
 * hash tag {@code {ns}}, so a namespace lives in one Redis Cluster slot. Optionally each write waits
 * for replicas with {@code WAIT}.
 *
 * <p>Durability is Redis's: run it with {@code appendonly yes} and {@code appendfsync always}, or wait
 * for replicas, or turn on the runtime's cold-start guard (see {@code docs/stores.md}). Behind Redis Sentinel
 * it asks the sentinels for the primary at every (re)connection, so it follows a failover.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaseStore store = LeaseStores.open("redis://127.0.0.1:6379/0?waitReplicas=1&waitTimeout=100");
 * }</pre>
 */
public final class RedisLeaseStore implements LeaseStore {

    /** How long a command may take before it fails; also the connect bound. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** The longest pause between two attempts to reconnect. */
    static final Duration RECONNECT_DELAY = Duration.ofSeconds(1);

    private final AbstractRedisClient client;
    private final ClientResources resources;
    private final StatefulConnection<String, String> connection;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final String description;
    private final int waitReplicas;
    private final long waitTimeoutMillis;
    /** Whether an automatic failover to an asynchronous replica may lose acknowledged changes. */
    private final boolean failoverMayStepBack;
    private final NamespaceLimits limits = new NamespaceLimits();
    private final Map<String, String> shas = new ConcurrentHashMap<>();
    /**
     * How long one command may take: {@link #TIMEOUT} until a keeper's terms arrive, then a sixth of their
     * ttl, so a store that hangs never holds a keeper past its renewal interval of ttl/3.
     */
    private volatile long boundMillis = TIMEOUT.toMillis();
    /** A sixth of the ttl of the last terms, the longest a write waits for its replicas; unbounded before any. */
    private volatile long ttlBoundMillis = Long.MAX_VALUE;

    RedisLeaseStore(RedisURI uri, String description, int waitReplicas, long waitTimeoutMillis) {
        this.description = description;
        this.waitReplicas = waitReplicas;
        this.waitTimeoutMillis = waitTimeoutMillis;
        this.failoverMayStepBack = !uri.getSentinels().isEmpty() && waitReplicas == 0;
        uri.setTimeout(TIMEOUT);
        uri.getSentinels().forEach(sentinel -> sentinel.setTimeout(TIMEOUT));
        this.resources = resources();
        RedisClient created = RedisClient.create(resources);
        this.client = created;
        StatefulRedisConnection<String, String> opened;
        try {
            opened = created.connect(io.lettuce.core.codec.StringCodec.UTF8, uri);
        } catch (RedisException e) {
            created.shutdown(Duration.ZERO, TIMEOUT);
            resources.shutdown(0, TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            String refusal = authenticationRefusal(e);
            if (refusal != null) {
                throw new LeaseStoreException("authentication failed at " + description + ": the server refused the "
                        + "user name or password (" + refusal + "); check the password in the store URL", e);
            }
            throw new LeaseStoreException("cannot reach " + description + " within " + TIMEOUT.toMillis() + " ms: "
                    + failure(e), e);
        }
        this.connection = opened;
        this.commands = opened.async();
    }

    /**
     * A store on a connection opened elsewhere, such as a Redis Cluster connection; closing the store
     * closes the connection and shuts the client and its resources down.
     */
    RedisLeaseStore(AbstractRedisClient client, ClientResources resources, StatefulConnection<String, String> connection,
                    RedisClusterAsyncCommands<String, String> commands, String description) {
        this.client = client;
        this.resources = resources;
        this.connection = connection;
        this.commands = commands;
        this.description = description;
        this.waitReplicas = 0;
        this.waitTimeoutMillis = 0;
        this.failoverMayStepBack = true; // a cluster's replicas are asynchronous, its failover automatic
    }

    private RedisLeaseStore(RedisClient shared, String description) {
        this.description = description;
        this.waitReplicas = 0;
        this.waitTimeoutMillis = 0;
        this.client = null;
        this.resources = null;
        this.failoverMayStepBack = false;
        StatefulRedisConnection<String, String> opened;
        try {
            opened = shared.connect(io.lettuce.core.codec.StringCodec.UTF8);
        } catch (RedisException e) {
            throw new LeaseStoreException("cannot reach " + description + ": " + failure(e), e);
        }
        // the application's client may wait a minute for a command; a keeper must fail in time and retry
        opened.setTimeout(TIMEOUT);
        this.connection = opened;
        this.commands = opened.async();
    }

    /**
     * Opens a store on its own connection from a client the application owns and configured (such as
     * the one behind Spring Data Redis), to the client's default address. Closing the store closes that
     * connection only, never the client.
     *
     * @param client a client created with a default {@link RedisURI}
     * @param description the address for messages, without a password
     * @return the store, owned by the caller
     * @throws LeaseStoreException when the connection cannot be opened
     */
    public static RedisLeaseStore on(RedisClient client, String description) {
        return new RedisLeaseStore(java.util.Objects.requireNonNull(client, "client"),
                java.util.Objects.requireNonNull(description, "description"));
    }

    /**
     * The client resources of a store's own client: a reconnection (after a restart or a failover) retries within
     * a second at most, where Lettuce's default backs off to 30 s; a keeper renews every ttl/3 and must find the
     * store again within the lease.
     */
    static ClientResources resources() {
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
                .build();
    }

    /**
     * Describes a connection failure with what caused it: Lettuce's "Unable to connect to host:port" alone
     * does not tell a refused port from a connection the server closed or a reply that never came.
     */
    static String failure(Throwable failure) {
        Throwable root = root(failure);
        if (root == failure && failure.getSuppressed().length > 0) {
            // a Redis Cluster client attaches each seed node's failure as a suppressed exception
            root = root(failure.getSuppressed()[0]);
        }
        String text = String.valueOf(failure.getMessage());
        if (root != failure) {
            text += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return LeaseStores.redact(text);
    }

    private static Throwable root(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root;
    }

    /** Returns the server's refusal of the credentials in a connection failure, or null when it is another fault. */
    static String authenticationRefusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = String.valueOf(cause.getMessage());
            for (String code : new String[] {"WRONGPASS", "NOAUTH", "NOPERM", "ERR AUTH", "ERR invalid password",
                    "ERR Client sent AUTH"}) {
                if (message.startsWith(code)) {
                    int end = message.indexOf('\n');
                    return end < 0 ? message : message.substring(0, end);
                }
            }
        }
        return null;
    }

    private static String layoutsKey(String namespace) {
        return "cosid:{" + namespace + "}:layouts";
    }

    private static String namespaceKey(String namespace) {
        return "cosid:{" + namespace + "}:namespace";
    }

    private static String slotsKey(String namespace) {
        return "cosid:{" + namespace + "}:slots";
    }

    @Override
    public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
        Namespaces.require(namespace);
        List<Object> stored = script("register namespace '" + namespace + "'", RedisScripts.REGISTER,
                namespaceKey(namespace), Integer.toString(proposed.limit()), Long.toString(proposed.toleranceMillis()));
        NamespaceRecord record = new NamespaceRecord(Integer.parseInt((String) stored.get(0)),
                Long.parseLong((String) stored.get(1)));
        limits.remember(namespace, record);
        return record;
    }

    @Override
    public Optional<NamespaceRecord> namespace(String namespace) {
        Namespaces.require(namespace);
        List<String> fields = call("read namespace '" + namespace + "'", boundMillis,
                () -> commands.hmget(namespaceKey(namespace), "limit", "tolerance")).stream()
                        .map(value -> value.getValueOrElse(null)).collect(java.util.stream.Collectors.toList());
        if (fields.get(0) == null || fields.get(1) == null) {
            return Optional.empty();
        }
        return Optional.of(new NamespaceRecord(Integer.parseInt(fields.get(0)), Long.parseLong(fields.get(1))));
    }

    @Override
    public LayoutRecord registerLayout(String namespace, String name, LayoutRecord proposed) {
        Namespaces.require(namespace);
        Names.require(name);
        List<Object> stored = script("record the layout of id space '" + name + "' of namespace '" + namespace + "'",
                RedisScripts.REGISTER_LAYOUT, new String[] {layoutsKey(namespace)}, name, proposed.text());
        try {
            return LayoutRecord.parse((String) stored.get(0));
        } catch (IllegalArgumentException e) {
            throw new LeaseStoreException("the layout of id space '" + name + "' of namespace '" + namespace + "' in "
                    + description + " is corrupt: " + e.getMessage());
        }
    }

    @Override
    public SlotTable read(String namespace) {
        Namespaces.require(namespace);
        List<Object> reply = script("read the slots of namespace '" + namespace + "'", RedisScripts.READ,
                slotsKey(namespace));
        long now = Long.parseLong((String) reply.get(0));
        List<SlotRecord> records = new ArrayList<>();
        for (int i = 1; i + 1 < reply.size(); i += 2) {
            records.add(SlotRecordCodec.decode(Integer.parseInt((String) reply.get(i)), (String) reply.get(i + 1)));
        }
        records.sort(java.util.Comparator.comparingInt(SlotRecord::slot));
        return new SlotTable(namespace, now, records);
    }

    @Override
    public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
        limits.requireSlot(namespace, slot, this::namespace);
        bound(terms);
        return lease(namespace, slot, script("acquire slot " + slot + " of namespace '" + namespace + "'",
                RedisScripts.ACQUIRE, slotsKey(namespace), Integer.toString(slot), owner.key(),
                owner.incarnation().toString(), Long.toString(terms.ttlMillis()), Long.toString(terms.toleranceMillis()),
                terms.coldStartGuard() ? "1" : "0", terms.takeoverGuard() ? "1" : "0"));
    }

    @Override
    public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        bound(terms);
        return lease(lease.namespace(), lease.slot(), script("renew " + lease, RedisScripts.RENEW,
                new String[] {slotsKey(lease.namespace()), namespaceKey(lease.namespace())},
                Integer.toString(lease.slot()), lease.owner().key(),
                lease.owner().incarnation().toString(), Long.toString(lease.fence()), Long.toString(terms.ttlMillis()),
                Long.toString(terms.toleranceMillis())));
    }

    @Override
    public boolean release(SlotLease lease, long lastIssuedMillis) {
        limits.requireSlot(lease.namespace(), lease.slot(), this::namespace);
        return applied(script("release " + lease, RedisScripts.RELEASE, slotsKey(lease.namespace()),
                Integer.toString(lease.slot()), lease.owner().key(), lease.owner().incarnation().toString(),
                Long.toString(lease.fence()), Long.toString(lastIssuedMillis)));
    }

    private void bound(LeaseTerms terms) {
        ttlBoundMillis = terms.callBoundMillis(Long.MAX_VALUE);
        boundMillis = terms.callBoundMillis(TIMEOUT.toMillis());
    }

    /** A script whose condition failed returns nil, which arrives as null or as a list holding null. */
    private static boolean applied(List<Object> reply) {
        return reply != null && !reply.isEmpty() && reply.get(0) != null;
    }

    private static Optional<SlotLease> lease(String namespace, int slot, List<Object> reply) {
        if (!applied(reply)) {
            return Optional.empty();
        }
        SlotRecord record = SlotRecordCodec.decode(slot, (String) reply.get(0));
        boolean takenOver = reply.size() > 2 && "1".equals(reply.get(2)); // only an acquire reports it
        return Optional.of(record.toLease(namespace, Long.parseLong((String) reply.get(1)), takenOver));
    }

    /** Runs a script by its digest, loading it on first use and after the server lost its script cache. */
    private List<Object> script(String what, String script, String key, String... args) {
        return script(what, script, new String[] {key}, args);
    }

    private List<Object> script(String what, String script, String[] keys, String... args) {
        return script(what, script, keys, script != RedisScripts.READ, args);
    }

    /**
     * Runs a script by its digest within the store's bound; a {@code write} whose reply says it applied waits for
     * {@code waitReplicas} replicas as every write of the store does, and fails when they do not confirm it.
     *
     * @param what the operation, for messages
     * @param script the script
     * @param keys its keys, all in one hash slot
     * @param write whether the script may write
     * @param args its arguments
     * @return the reply; null, or a list whose first element is null, when the script's condition failed
     */
    List<Object> script(String what, String script, String[] keys, boolean write, String... args) {
        long bound = boundMillis;
        // the digest is computed here, and a node that lacks the script gets it through EVAL on the keys' node:
        // SCRIPT LOAD on a cluster goes to every node, and one node cut off would fail every load
        String sha = shas.computeIfAbsent(script, RedisLeaseStore::sha1);
        List<Object> reply;
        try {
            reply = call(what, bound, evalsha(sha, keys, args));
        } catch (LeaseStoreException e) {
            if (!(e.getCause() instanceof RedisNoScriptException)) {
                throw e;
            }
            reply = call(what, bound, () -> commands.<List<Object>>eval(script, ScriptOutputType.MULTI, keys, args));
        }
        if (applied(reply) && waitReplicas > 0 && write) {
            // the same connection ran the write, so WAIT counts the replicas that have it; a write the replicas
            // did not confirm fails, so the keeper never counts on a window only this primary knows
            long wait = Math.min(waitTimeoutMillis, ttlBoundMillis);
            long acknowledged = call("wait for replicas", wait + bound, () -> commands.waitForReplication(waitReplicas,
                    wait));
            if (acknowledged < waitReplicas) {
                throw new LeaseStoreException("only " + acknowledged + " of " + waitReplicas + " replicas of "
                        + description + " acknowledged the write to " + what + " within " + wait + " ms");
            }
        }
        return reply;
    }

    /** The SHA-1 digest of a script in lower-case hex, as Redis names it in its script cache. */
    static String sha1(String script) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                    .digest(script.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-1", e);
        }
    }

    private java.util.function.Supplier<RedisFuture<List<Object>>> evalsha(String sha, String[] keys, String... args) {
        return () -> commands.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args);
    }

    /**
     * Sends one command and waits for its answer within the store's bound.
     *
     * @param what the operation, for messages
     * @param command sends the command
     * @return the answer
     */
    <T> T call(String what, java.util.function.Supplier<RedisFuture<T>> command) {
        return call(what, boundMillis, command);
    }

    /** Returns the commands of the store's connection, for the leadership transport's reads. */
    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    /** Sends one command and waits for its answer at most {@code boundMillis}; a late answer is cancelled. */
    private <T> T call(String what, long boundMillis, java.util.function.Supplier<RedisFuture<T>> command) {
        try {
            return LettuceFutures.awaitOrCancel(command.get(), boundMillis, TimeUnit.MILLISECONDS);
        } catch (RedisException e) {
            throw new LeaseStoreException("cannot " + what + " in " + description + ": " + e.getMessage(), e);
        }
    }

    private static String segmentsKey(String namespace) {
        return "cosid:{" + namespace + "}:segments";
    }

    @Override
    public SegmentRange reserveSegment(String namespace, String name, long size) {
        Namespaces.requireSegment(namespace, name);
        if (size < 1) {
            throw new IllegalArgumentException("a segment reservation takes at least 1 id, not " + size);
        }
        List<Object> reply = script("reserve " + size + " ids of segment '" + name + "' of namespace '" + namespace
                + "'", RedisScripts.RESERVE_SEGMENT, new String[] {segmentsKey(namespace), namespaceKey(namespace)},
                name, Long.toString(size));
        if (!applied(reply)) {
            throw limits.missing(namespace, description);
        }
        long last = Long.parseLong((String) reply.get(0));
        return new SegmentRange(namespace, name, last - size + 1, last);
    }

    @Override
    public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
        Namespaces.requireSegment(range.namespace(), range.name());
        if (lastIssued < range.first() - 1 || lastIssued > range.last()) {
            throw new IllegalArgumentException("last issued id " + lastIssued + " lies outside " + range);
        }
        return applied(script("return the tail of " + range, RedisScripts.RETURN_SEGMENT_TAIL,
                new String[] {segmentsKey(range.namespace()), namespaceKey(range.namespace())}, range.name(),
                Long.toString(range.last()), Long.toString(lastIssued)));
    }

    @Override
    public long raiseSegment(String namespace, String name, long atLeast) {
        Namespaces.requireSegment(namespace, name);
        if (atLeast < 0) {
            throw new IllegalArgumentException("a segment counter is raised to 0 or more, not " + atLeast);
        }
        List<Object> reply = script("raise segment '" + name + "' of namespace '" + namespace + "' to " + atLeast,
                RedisScripts.RAISE_SEGMENT, new String[] {segmentsKey(namespace), namespaceKey(namespace)}, name,
                Long.toString(atLeast));
        if (!applied(reply)) {
            throw limits.missing(namespace, description);
        }
        return Long.parseLong((String) reply.get(0));
    }

    @Override
    public java.util.SortedMap<String, Long> segments(String namespace) {
        Namespaces.require(namespace);
        Map<String, String> all = call("read the segments of namespace '" + namespace + "'", boundMillis,
                () -> commands.hgetall(segmentsKey(namespace)));
        java.util.SortedMap<String, Long> counters = new java.util.TreeMap<>();
        all.forEach((name, value) -> counters.put(name, Long.parseLong(value)));
        return counters;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean failoverMayStepBack() {
        return failoverMayStepBack;
    }

    @Override
    public void close() {
        connection.close();
        if (client != null) {
            client.shutdown(Duration.ZERO, TIMEOUT);
        }
        if (resources != null) {
            resources.shutdown(0, TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public String toString() {
        return "RedisLeaseStore[" + description + "]";
    }
}
