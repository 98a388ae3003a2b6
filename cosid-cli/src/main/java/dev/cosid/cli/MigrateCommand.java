package dev.cosid.cli;

import dev.cosid.IdLayout;
import dev.cosid.NamespaceMismatchException;
import dev.cosid.StateFile;
import dev.cosid.jdbc.JdbcDialect;
import dev.cosid.jdbc.JdbcLeaseStore;
import dev.cosid.jdbc.LeafAllocTable;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Namespaces;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotRecord;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.Clock;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./cosid migrate}: computes a safe not-before from a CosId 2.x/3.x deployment and writes it
 * into a static slot's state file or as the next floor of every slot of a namespace in a store.
 *
 * <p>Every input is checked before anything is written: a timestamp below zero, past the end of the
 * layout, or more than {@link #FUTURE_LIMIT} ahead of this host's clock (without {@code --allow-future})
 * is refused, and so is a safe guard longer than {@link #MAX_SAFE_GUARD}. {@code --dry-run} opens the
 * target read-only and creates neither a file nor a table.
 *
 * <p>With {@code --from-leaf} or {@code --from-cosid-segments} it migrates segment counters instead: it
 * reads Leaf's {@code leaf_alloc} rows or CosId 2.x's segment counters and raises each name's counter in
 * the store to the largest id the old system can have handed out (see {@link LegacySegments}).
 */
@Command(name = "migrate", mixinStandardHelpOptions = true,
        description = {"Computes a safe not-before from CosId 2.x/3.x machine state (the largest last timestamp "
                + "plus the old safe guard) and writes it as the floor of a static slot's state file or of every "
                + "slot of a namespace in a store. Stop every old instance first.",
                "With --from-leaf or --from-cosid-segments, raises segment counters in a store instead, so that "
                        + "segment ids continue above every id Leaf or CosId 2.x handed out."})
final class MigrateCommand implements Callable<Integer> {

    private static final String MIGRATOR = "cosid-migrate";
    /** The longest safe guard taken: CosId's guarder writes every minute and its default guard is minutes. */
    static final Duration MAX_SAFE_GUARD = Duration.ofDays(1);
    /** How far past this host's clock a not-before may lie without {@code --allow-future}. */
    static final Duration FUTURE_LIMIT = Duration.ofDays(1);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--from-file", paramLabel = "PATH",
            description = "a machine-state file or directory (~/.cosid-machine-state) holding machineId|lastTimeStamp")
    List<Path> fromFiles = new ArrayList<>();

    @Option(names = "--from-jdbc", paramLabel = "JDBC_URL", description = "a database holding the table cosid_machine")
    List<String> fromJdbc = new ArrayList<>();

    @Option(names = "--from-redis", paramLabel = "REDIS_URL",
            description = "a Redis holding the hashes cosid:{ns}:itc_idx and cosid:{ns}:revert")
    List<String> fromRedis = new ArrayList<>();

    @Option(names = "--from-zookeeper", paramLabel = "ZK_URL",
            description = "a ZooKeeper holding /cosid/{ns}/__itc_idx and /cosid/{ns}/__revert, as zookeeper://host:port")
    List<String> fromZooKeeper = new ArrayList<>();

    @Option(names = "--from-leaf", paramLabel = "JDBC_URL",
            description = "a database holding Leaf's table leaf_alloc: each biz_tag's segment continues at its max_id")
    String fromLeaf;

    @Option(names = "--leaf-table", paramLabel = "NAME", defaultValue = LeafAllocTable.DEFAULT_TABLE,
            description = "the Leaf table of --from-leaf (default: ${DEFAULT-VALUE})")
    String leafTable;

    @Option(names = "--from-cosid-segments", paramLabel = "URL",
            description = "CosId 2.x segment counters: a Redis (cosid:{ns.name}.adder) or a database (table cosid)")
    List<String> fromCosIdSegments = new ArrayList<>();

    @Option(names = "--legacy-namespace", paramLabel = "NS",
            description = "read only this CosId namespace (default: all)")
    String legacyNamespace;

    @Option(names = "--layout", paramLabel = "NAME", defaultValue = "MILLISECOND",
            description = "the layout of the old ids and the new ones: MILLISECOND, SECOND, SAFE_JS_MILLISECOND, "
                    + "SAFE_JS_SECOND or SAFE_JS_MILLISECOND_LEGACY_EPOCH (default: ${DEFAULT-VALUE})")
    String layoutName;

    @Option(names = "--allow-future", description = "accept a not-before more than 1 day ahead of this host's clock")
    boolean allowFuture;

    @Option(names = "--safe-guard", paramLabel = "D", converter = Durations.class, defaultValue = "5m",
            description = "the old safe-guard duration added to the largest last timestamp (default: ${DEFAULT-VALUE})")
    Duration safeGuard;

    @Option(names = "--not-before", paramLabel = "INSTANT",
            description = "an operator's bound, e.g. 2026-12-01T00:00:00Z; the later of it and the computed one wins")
    Instant notBefore;

    @Option(names = "--to-state-file", paramLabel = "PATH", description = "write a static slot's state file")
    Path toStateFile;

    @Option(names = "--slot", paramLabel = "N", description = "the static slot of --to-state-file")
    Integer slot;

    @Option(names = "--to-store", paramLabel = "URL",
            description = "raise the next floor of every slot in a store, one of:" + StoreOptions.URLS)
    String toStore;

    @Option(names = "--namespace", paramLabel = "NS", defaultValue = CosIdCommand.DEFAULT_NAMESPACE,
            description = "the new namespace (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(names = "--bits", paramLabel = "N", defaultValue = "10",
            description = "slot bits of the namespace in --to-store (default: ${DEFAULT-VALUE})")
    int bits;

    @Option(names = "--tolerance", paramLabel = "D", converter = Durations.class, defaultValue = "1s",
            description = "tolerance of the namespace in --to-store (default: ${DEFAULT-VALUE})")
    Duration tolerance;

    @Option(names = "--dry-run", description = "print what would be written, write nothing")
    boolean dryRun;

    @Override
    public Integer call() {
        Namespaces.require(namespace);
        checkAddresses();
        if (fromLeaf != null || !fromCosIdSegments.isEmpty()) {
            return migrateSegments();
        }
        if ((toStateFile == null) == (toStore == null)) {
            throw new IllegalArgumentException("name one target: --to-state-file PATH --slot N, or --to-store URL");
        }
        if (toStateFile != null && slot == null) {
            throw new IllegalArgumentException("--to-state-file needs --slot N");
        }
        IdLayout layout = IdLayout.preset(layoutName);
        if (bits < 0 || bits > 16) {
            throw new IllegalArgumentException("--bits " + bits + " is outside 0..16");
        }
        if (toStore != null) {
            layout.requireSlotBits(bits);
        }
        if (slot != null && (slot < 0 || slot >= layout.slotCount())) {
            throw new IllegalArgumentException("--slot " + slot + " does not fit the " + layout.slotBits()
                    + " slot bits of layout " + layout.describe());
        }
        if (safeGuard.isNegative() || safeGuard.compareTo(MAX_SAFE_GUARD) > 0) {
            throw new IllegalArgumentException("--safe-guard " + safeGuard + " is outside 0 to " + MAX_SAFE_GUARD);
        }
        if (tolerance.isNegative() || tolerance.compareTo(MAX_SAFE_GUARD) > 0) {
            throw new IllegalArgumentException("--tolerance " + tolerance + " is outside 0 to " + MAX_SAFE_GUARD);
        }
        if (notBefore != null) {
            requireWithin(layout, "--not-before", notBefore);
        }
        PrintWriter out = spec.commandLine().getOut();
        List<LegacyMachineStates.MachineState> states = new ArrayList<>();
        fromFiles.forEach(path -> states.addAll(LegacyMachineStates.fromFiles(path, legacyNamespace)));
        fromJdbc.forEach(url -> states.addAll(LegacyMachineStates.fromJdbc(url, legacyNamespace)));
        fromRedis.forEach(url -> states.addAll(LegacyMachineStates.fromRedis(url, legacyNamespace)));
        fromZooKeeper.forEach(url -> states.addAll(LegacyMachineStates.fromZooKeeper(url, legacyNamespace)));
        long bound = bound(states, layout, out);
        if (toStateFile != null) {
            writeStateFile(bound, out);
        } else {
            writeStore(bound, out);
        }
        out.flush();
        return 0;
    }

    /**
     * Checks the hosts, ports and database numbers of every source and target URL before anything is read,
     * so a typo is one line (exit 2) instead of a connection to the wrong place.
     */
    private void checkAddresses() {
        List<String> urls = new ArrayList<>(fromJdbc);
        urls.addAll(fromRedis);
        urls.addAll(fromZooKeeper);
        urls.addAll(fromCosIdSegments);
        if (fromLeaf != null) {
            urls.add(fromLeaf);
        }
        if (toStore != null) {
            urls.add(toStore);
        }
        for (String url : urls) {
            String lower = url.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("redis://") || lower.startsWith("rediss://")) {
                dev.cosid.redis.RedisLeaseStoreProvider.checkAddress(url);
            } else if (lower.startsWith("zookeeper://") && !lower.equals("zookeeper://")
                    && !lower.startsWith("zookeeper:///")) { // naming no server has its own refusal
                dev.cosid.zookeeper.ZooKeeperLeaseStoreProvider.checkAddress(url);
            } else if (lower.startsWith("jdbc:")) {
                dev.cosid.jdbc.JdbcLeaseStoreProvider.checkAddress(url);
            }
        }
    }

    private long bound(List<LegacyMachineStates.MachineState> states, IdLayout layout, PrintWriter out) {
        if (states.isEmpty() && notBefore == null) {
            throw new IllegalArgumentException("no machine state was read and no --not-before given: name a source "
                    + "(--from-file, --from-jdbc, --from-redis, --from-zookeeper) or a bound");
        }
        for (LegacyMachineStates.MachineState state : states) {
            requireWithin(layout, state.source() + ": machine " + state.machineId() + ", last timestamp",
                    Instant.ofEpochMilli(state.lastTimestampMillis()));
        }
        // printed only once every check passed: bad input prints one line on stderr and nothing else
        List<String> report = new ArrayList<>();
        for (LegacyMachineStates.MachineState state : states) {
            report.add("read " + state.source() + ": machine " + state.machineId() + ", last timestamp "
                    + Instant.ofEpochMilli(state.lastTimestampMillis()));
        }
        long bound = notBefore == null ? 0 : notBefore.toEpochMilli();
        if (!states.isEmpty()) {
            long largest = states.stream().mapToLong(LegacyMachineStates.MachineState::lastTimestampMillis).max()
                    .orElseThrow();
            // largest lies within the layout (before 2090) and the guard is at most a day: no overflow
            long computed = largest + safeGuard.toMillis();
            report.add("largest last timestamp " + Instant.ofEpochMilli(largest) + " + safe guard " + safeGuard
                    + " = " + Instant.ofEpochMilli(computed));
            bound = Math.max(bound, computed);
        }
        requireWithin(layout, "the not-before", Instant.ofEpochMilli(bound));
        long now = Clock.system().nowMillis();
        if (!allowFuture && bound - now > FUTURE_LIMIT.toMillis()) {
            throw new IllegalArgumentException("the not-before " + Instant.ofEpochMilli(bound) + " lies more than "
                    + FUTURE_LIMIT.toHours() + " h ahead of this host's clock (" + Instant.ofEpochMilli(now)
                    + "); check the sources, or pass --allow-future if the old clocks really ran that far ahead");
        }
        report.forEach(out::println);
        out.println("not-before " + Instant.ofEpochMilli(bound) + " (" + bound + " ms)");
        if (layout.unitOf(bound) >= 0) {
            out.println("layout " + layout.describe() + ": every id issued after the not-before is greater than "
                    + layout.compose(layout.unitOf(bound), (int) layout.slotCount() - 1, layout.maxSequence()));
        }
        return bound;
    }

    /**
     * Raises the segment counter of every name read from Leaf or CosId 2.x so that new segment ids
     * continue above every id the old system can have handed out. Everything is read and checked
     * before the target is opened; a counter is only ever raised, so a second run changes nothing.
     */
    private int migrateSegments() {
        List<String> machineOptions = new ArrayList<>();
        if (!fromFiles.isEmpty()) {
            machineOptions.add("--from-file");
        }
        if (!fromJdbc.isEmpty()) {
            machineOptions.add("--from-jdbc");
        }
        if (!fromRedis.isEmpty()) {
            machineOptions.add("--from-redis");
        }
        if (!fromZooKeeper.isEmpty()) {
            machineOptions.add("--from-zookeeper");
        }
        if (toStateFile != null) {
            machineOptions.add("--to-state-file");
        }
        if (slot != null) {
            machineOptions.add("--slot");
        }
        if (notBefore != null) {
            machineOptions.add("--not-before");
        }
        if (!machineOptions.isEmpty()) {
            throw new IllegalArgumentException("segment counters (--from-leaf, --from-cosid-segments) and machine state "
                    + String.join(", ", machineOptions) + " migrate in separate runs: run migrate once for each");
        }
        if (toStore == null) {
            throw new IllegalArgumentException("segment counters migrate into a store: add --to-store URL");
        }
        if (fromLeaf != null && legacyNamespace != null && fromCosIdSegments.isEmpty()) {
            throw new IllegalArgumentException("--legacy-namespace selects a CosId namespace; Leaf's table has none "
                    + "(each biz_tag becomes a segment of --namespace)");
        }
        LeafAllocTable.requireTable(leafTable);
        if (bits < 0 || bits > 16) {
            throw new IllegalArgumentException("--bits " + bits + " is outside 0..16");
        }
        if (tolerance.isNegative() || tolerance.compareTo(MAX_SAFE_GUARD) > 0) {
            throw new IllegalArgumentException("--tolerance " + tolerance + " is outside 0 to " + MAX_SAFE_GUARD);
        }
        List<LegacySegments.Counter> counters = new ArrayList<>();
        if (fromLeaf != null) {
            counters.addAll(LegacySegments.fromLeaf(fromLeaf, leafTable));
        }
        for (String url : fromCosIdSegments) {
            List<LegacySegments.Counter> read = url.regionMatches(true, 0, "jdbc:", 0, 5)
                    ? LegacySegments.fromCosIdJdbc(url, legacyNamespace)
                    : LegacySegments.fromCosIdRedis(url, legacyNamespace);
            if (read.isEmpty()) {
                throw new IllegalStateException("no CosId segment counter was found in " + LeaseStores.redact(url)
                        + (legacyNamespace == null ? "" : " under namespace '" + legacyNamespace + "'") + ": nothing to "
                        + "migrate; check the URL" + (legacyNamespace == null ? "" : " and --legacy-namespace"));
            }
            counters.addAll(read);
        }
        LegacySegments.requireNames(counters);
        java.util.SortedMap<String, Long> targets = new java.util.TreeMap<>();
        counters.forEach(counter -> targets.merge(counter.name(), counter.counter(), Math::max));
        PrintWriter out = spec.commandLine().getOut();
        LegacySegments.report(counters, out);
        NamespaceRecord proposed = new NamespaceRecord(1 << bits, tolerance.toMillis());
        Optional<LeaseStore> opened = dryRun ? openReadOnly(toStore) : Optional.of(LeaseStores.open(toStore));
        if (opened.isEmpty()) {
            out.println("would create the CosId tables in " + LeaseStores.redact(toStore) + " and register namespace '"
                    + namespace + "'");
            targets.forEach((name, counter) -> out.println("would raise segment '" + name + "' of namespace '"
                    + namespace + "' to " + counter + ": ids continue at " + (counter + 1)));
            out.flush();
            return 0;
        }
        try (LeaseStore store = opened.get()) {
            boolean registered = store.namespace(namespace).isPresent();
            if (!registered && !dryRun) {
                store.register(namespace, proposed);
            }
            java.util.SortedMap<String, Long> current = registered
                    ? store.segments(namespace) : java.util.Collections.emptySortedMap();
            for (Map.Entry<String, Long> target : targets.entrySet()) {
                String name = target.getKey();
                long before = current.getOrDefault(name, 0L);
                long after = dryRun ? Math.max(before, target.getValue())
                        : store.raiseSegment(namespace, name, target.getValue());
                String where = "segment '" + name + "' of namespace '" + namespace + "' in " + store.describe();
                if (after == before) {
                    out.println((dryRun ? "would keep " : "kept ") + where + " at " + after
                            + ", already at or above " + target.getValue() + ": ids continue at " + (after + 1));
                } else {
                    out.println((dryRun ? "would raise " : "raised ") + where + " from " + before + " to " + after
                            + ": ids continue at " + (after + 1));
                }
            }
        }
        out.flush();
        return 0;
    }

    /** Refuses an instant before 1970 or past the last one the layout's ids can carry. */
    private static void requireWithin(IdLayout layout, String what, Instant instant) {
        Instant end = Instant.ofEpochMilli(layout.endMillis());
        if (instant.isBefore(Instant.EPOCH) || !instant.isBefore(end)) {
            throw new IllegalArgumentException(what + " " + describe(instant) + " lies outside 1970-01-01T00:00:00Z to "
                    + end + ", the last instant of layout " + layout.describe());
        }
    }

    private static String describe(Instant instant) {
        try {
            return instant + " (" + instant.toEpochMilli() + " ms)";
        } catch (ArithmeticException beyondLong) {
            return instant.toString();
        }
    }

    private void writeStateFile(long bound, PrintWriter out) {
        Optional<StateFile.State> existing = StateFile.read(toStateFile);
        if (existing.isPresent() && (!existing.get().namespace().equals(namespace) || existing.get().slot() != slot)) {
            throw new IllegalArgumentException("the state file " + toStateFile + " belongs to namespace '"
                    + existing.get().namespace() + "' slot " + existing.get().slot() + ", not '" + namespace
                    + "' slot " + slot);
        }
        long ceiling = Math.max(bound, existing.map(StateFile.State::ceiling).orElse(0L));
        String action = (dryRun ? "would write" : "wrote") + " ceiling " + ceiling + " (" + Instant.ofEpochMilli(ceiling)
                + ") to the state file " + toStateFile + " of namespace '" + namespace + "' slot " + slot;
        if (!dryRun) {
            StateFile.write(toStateFile, new StateFile.State(namespace, slot, ceiling));
        }
        out.println(action);
    }

    private void writeStore(long bound, PrintWriter out) {
        NamespaceRecord proposed = new NamespaceRecord(1 << bits, tolerance.toMillis());
        Optional<LeaseStore> opened = dryRun ? openReadOnly(toStore) : Optional.of(LeaseStores.open(toStore));
        if (opened.isEmpty()) {
            out.println("would create the CosId tables in " + LeaseStores.redact(toStore) + ", register namespace '"
                    + namespace + "' and raise the next floor of " + proposed.limit() + " of " + proposed.limit()
                    + " slots to " + bound);
            return;
        }
        try (LeaseStore store = opened.get()) {
            Optional<NamespaceRecord> existing = store.namespace(namespace);
            NamespaceRecord stored = dryRun ? existing.orElse(proposed) : store.register(namespace, proposed);
            if (!stored.equals(proposed)) {
                throw new NamespaceMismatchException("namespace '" + namespace + "' holds " + stored
                        + "; the migration asks for " + proposed + " (bits " + bits + ")");
            }
            SlotTable table = dryRun && existing.isEmpty()
                    ? new SlotTable(namespace, 0, List.of()) : store.read(namespace);
            Map<Integer, SlotRecord> records = table.bySlot();
            List<Integer> held = records.values().stream().filter(r -> !r.freeAt(table.storeNow()))
                    .map(SlotRecord::slot).collect(Collectors.toList());
            if (!held.isEmpty()) {
                throw new IllegalStateException("slots " + held + " of namespace '" + namespace + "' are held by live "
                        + "leases; stop every instance of the namespace before migrating");
            }
            int raised = 0;
            Owner migrator = Owner.of(MIGRATOR);
            for (int s = 0; s < stored.limit(); s++) {
                SlotRecord record = records.getOrDefault(s, SlotRecord.empty(s));
                if (record.nextFloor() >= bound) {
                    continue;
                }
                raised++;
                if (!dryRun) {
                    raise(store, s, migrator, bound, table.storeNow());
                }
            }
            out.println((dryRun ? "would raise" : "raised") + " the next floor of " + raised + " of " + stored.limit()
                    + " slots of namespace '" + namespace + "' in " + store.describe() + " to " + bound);
        }
    }

    /**
     * Opens a store for a dry run without writing to it: a SQLite file read-only, a database without
     * creating tables; empty when the store does not exist yet (no file, or no CosId tables).
     */
    private static Optional<LeaseStore> openReadOnly(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("sqlite:") || lower.startsWith("jdbc:sqlite:")) {
            String path = url.substring(lower.indexOf("sqlite:") + "sqlite:".length());
            if (path.isBlank()) {
                throw new IllegalArgumentException("store URL '" + url + "' names no file; use sqlite:PATH");
            }
            Path file = Path.of(path.equals("~") || path.startsWith("~/")
                    ? System.getProperty("user.home") + path.substring(1) : path).toAbsolutePath();
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            SQLiteConfig config = new SQLiteConfig();
            config.setReadOnly(true);
            config.setBusyTimeout(10_000);
            SQLiteDataSource dataSource = new SQLiteDataSource(config);
            dataSource.setUrl("jdbc:sqlite:" + file);
            if (!hasCosIdTables(dataSource::getConnection, "sqlite:" + file)) {
                return Optional.empty();
            }
            return Optional.of(new JdbcLeaseStore(dataSource, JdbcDialect.SQLITE, "sqlite:" + file, false));
        }
        if (lower.startsWith("jdbc:")) {
            String driverUrl = lower.startsWith("jdbc:mysql:") ? "jdbc:mariadb:" + url.substring("jdbc:mysql:".length()) : url;
            java.sql.DriverManager.setLoginTimeout(5);
            if (!hasCosIdTables(() -> java.sql.DriverManager.getConnection(driverUrl), LeaseStores.redact(url))) {
                return Optional.empty();
            }
            String separator = lower.startsWith("jdbc:h2:") ? ";" : url.contains("?") ? "&" : "?";
            return Optional.of(LeaseStores.open(url + separator + "createSchema=false"));
        }
        return Optional.of(LeaseStores.open(url));
    }

    private static boolean hasCosIdTables(Connector connector, String description) {
        try (java.sql.Connection connection = connector.open()) {
            try (java.sql.Statement probe = connection.createStatement()) {
                probe.executeQuery("SELECT COUNT(*) FROM cosid_slot WHERE 1 = 0").close();
                return true;
            } catch (java.sql.SQLException missing) {
                return false;
            }
        } catch (java.sql.SQLException e) {
            throw new LeaseStoreException("cannot reach " + description + ": " + LeaseStores.redact(
                    String.valueOf(e.getMessage())), e);
        }
    }

    /** Opens one connection, for a probe. */
    private interface Connector {
        java.sql.Connection open() throws java.sql.SQLException;
    }

    /** Acquires the slot with a window that reaches the bound, then releases it at the bound. */
    private void raise(LeaseStore store, int s, Owner migrator, long bound, long storeNow) {
        long ttl = Math.max(1, bound - storeNow);
        SlotLease lease = store.acquire(namespace, s, migrator, new LeaseTerms(ttl, tolerance.toMillis()))
                .orElseThrow(() -> new IllegalStateException("slot " + s + " of namespace '" + namespace
                        + "' was taken during the migration; stop every instance and run it again"));
        if (!store.release(lease, bound)) {
            throw new IllegalStateException("slot " + s + " of namespace '" + namespace
                    + "' changed during the migration; run it again");
        }
    }
}
