package dev.cosid.jdbc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.SegmentRange;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leaf's table shared in place: Leaf's own statements (its DAO's, over plain JDBC) and ours reserve
 * from one {@code leaf_alloc} table created by Leaf's DDL; no id is handed out twice.
 */
abstract class LeafTableTests {

    private static final AtomicInteger TAGS = new AtomicInteger();

    protected HikariDataSource pool;
    protected LeafAllocTable table;

    /** @return the database, with credentials */
    protected abstract String jdbcUrl();

    /** @return Leaf's DDL in the database's dialect */
    protected abstract String ddl();

    @BeforeEach
    void createLeafTable() throws Exception {
        LeafPeer.run(jdbcUrl(), "DROP TABLE IF EXISTS leaf_alloc", ddl());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        table = new LeafAllocTable(pool, "leaf_alloc", "the test database");
    }

    @AfterEach
    void closePool() {
        pool.close();
    }

    /** Inserts a row as a Leaf operator does. */
    protected String tag(long maxId, int step) throws Exception {
        String tag = "leaf-segment-test-" + TAGS.incrementAndGet();
        LeafPeer.run(jdbcUrl(), "INSERT INTO leaf_alloc (biz_tag, max_id, step, description) VALUES ('" + tag + "', "
                + maxId + ", " + step + ", 'Test leaf Segment Mode Get Id')");
        return tag;
    }

    @Test
    void oursTakeExactlyTheIdsLeafWouldHaveHandedOutForTheSameStep() throws Exception {
        String tag = tag(1, 1000);
        try (LeafPeer leaf = new LeafPeer(jdbcUrl())) {
            assertArrayEquals(new long[] {1, 1000}, leaf.step(tag));
            assertEquals(new SegmentRange("ns", tag, 1001, 1300), table.reserve("ns", tag, 300));
            assertArrayEquals(new long[] {1301, 1350}, leaf.customStep(tag, 50));
            assertArrayEquals(new long[] {1351, 2350}, leaf.step(tag));
            assertEquals(new SegmentRange("ns", tag, 2351, 2351), table.reserve("ns", tag, 1));
        }
        assertEquals(2351L, table.counters().get(tag), "the counter is max_id - 1, the last id handed out");
    }

    @Test
    void leafsStatementsAndOursReservingConcurrentlyHandOutEveryIdOnce() throws Exception {
        String tag = tag(1, 700);
        int threadsEach = 3;
        int rounds = 100;
        Queue<long[]> ranges = new ConcurrentLinkedQueue<>();
        LeaseStore store = LeaseStores.open(jdbcUrl() + "&leafTable=leaf_alloc");
        ExecutorService threads = Executors.newFixedThreadPool(2 * threadsEach);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < threadsEach; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    try (LeafPeer leaf = new LeafPeer(jdbcUrl())) {
                        start.await();
                        for (int i = 0; i < rounds; i++) {
                            ranges.add(i % 2 == 0 ? leaf.step(tag) : leaf.customStep(tag, 100 + thread));
                        }
                    }
                    return null;
                }));
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        SegmentRange range = store.reserveSegment("ns", tag, 1 + (i * 37 + thread) % 500);
                        ranges.add(new long[] {range.first(), range.last()});
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
            store.close();
        }
        List<long[]> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(range -> range[0]));
        long repeated = 0;
        long gaps = 0;
        long next = 1;
        for (long[] range : sorted) {
            repeated += Math.max(0, Math.min(range[1], next - 1) - range[0] + 1);
            gaps += Math.max(0, range[0] - next);
            next = Math.max(next, range[1] + 1);
        }
        assertEquals(2 * threadsEach * rounds, sorted.size());
        assertEquals(0, repeated, "ids handed out twice among " + sorted.size() + " ranges up to " + (next - 1));
        assertEquals(0, gaps, "the ranges tile the ids without a hole");
        assertEquals(next - 1, (long) table.counters().get(tag));
    }

    @Test
    void aRuntimesSegmentIdsOnLeafsTableAndLeafsOwnStatementsNeverRepeat() throws Exception {
        String tag = tag(1, 700);
        int leafSegments = 30;
        int oursEach = 20_000;
        Queue<long[]> leafRanges = new ConcurrentLinkedQueue<>();
        Queue<long[]> ours = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try (CosIdRuntime runtime = CosIdRuntime.builder().store(jdbcUrl() + "&leafTable=leaf_alloc")
                .namespace("leaf-shared").start()) {
            SegmentId ids = runtime.segment(tag);
            for (int t = 0; t < 2; t++) {
                done.add(threads.submit(() -> {
                    try (LeafPeer leaf = new LeafPeer(jdbcUrl())) {
                        start.await();
                        for (int i = 0; i < leafSegments; i++) {
                            leafRanges.add(leaf.step(tag));
                        }
                    }
                    return null;
                }));
                done.add(threads.submit(() -> {
                    start.await();
                    long[] mine = new long[oursEach];
                    for (int i = 0; i < oursEach; i++) {
                        mine[i] = ids.nextId();
                    }
                    ours.add(mine);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        long[] all = LongStream.concat(
                leafRanges.stream().flatMapToLong(range -> LongStream.rangeClosed(range[0], range[1])),
                ours.stream().flatMapToLong(LongStream::of)).sorted().toArray();
        long repeated = IntStream.range(1, all.length).filter(i -> all[i] == all[i - 1]).count();
        assertEquals(2L * leafSegments * 700 + 2L * oursEach, all.length);
        assertEquals(0, repeated, "ids both handed out, among " + all.length);
        for (long[] mine : ours) {
            for (int i = 1; i < mine.length; i++) {
                assertTrue(mine[i] > mine[i - 1], "each thread's ids increase");
            }
        }
    }

    @Test
    void theStoreOptionReservesFromLeafsTableAndHandsNoTailBack() throws Exception {
        String tag = tag(1, 1000);
        // the option first among the parameters: the driver still gets its own
        try (LeaseStore store = LeaseStores.open(jdbcUrl().replace("?", "?leafTable=leaf_alloc&"))) {
            SegmentRange range = store.reserveSegment("ns", tag, 100);
            assertEquals(new SegmentRange("ns", tag, 1, 100), range);
            assertFalse(store.returnSegmentTail(range, 10), "Leaf would not know of a tail handed back");
            assertEquals(100L, store.segments("ns").get(tag));
            try (LeafPeer leaf = new LeafPeer(jdbcUrl())) {
                assertArrayEquals(new long[] {101, 1100}, leaf.step(tag), "Leaf continues after ours, not after 10");
            }
            assertEquals(1100L, store.raiseSegment("ns", tag, 1000), "a raise never lowers");
        }
    }

    @Test
    void theStoreOptionNamingAMissingTableFailsAtOpen() {
        LeaseStoreException error = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open(jdbcUrl() + "&leafTable=no_leaf_alloc"));
        assertTrue(error.getMessage().contains("the table no_leaf_alloc does not exist"), error.getMessage());
    }

    @Test
    void raisingMovesTheCounterUpOnlyAndTheNextRangeStartsAboveIt() throws Exception {
        String tag = tag(5_001, 1000);
        assertEquals(5_000, table.counters().get(tag));
        assertEquals(9_999, table.raise(tag, 9_999));
        assertEquals(9_999, table.raise(tag, 10), "never lowered");
        assertEquals(new SegmentRange("ns", tag, 10_000, 10_009), table.reserve("ns", tag, 10));
        try (LeafPeer leaf = new LeafPeer(jdbcUrl())) {
            assertArrayEquals(new long[] {10_010, 11_009}, leaf.step(tag));
        }
    }

    @Test
    void aTagWithoutARowIsRefusedNamingTheInsertAndNothingIsWritten() throws Exception {
        IllegalStateException missing = assertThrows(IllegalStateException.class,
                () -> table.reserve("ns", "no-such-tag", 10));
        assertTrue(missing.getMessage().contains("INSERT INTO leaf_alloc (biz_tag, max_id, step) VALUES ('no-such-tag'"),
                missing.getMessage());
        assertTrue(table.counters().isEmpty());
    }

    @Test
    void aMissingTableIsNamed() {
        LeafAllocTable absent = new LeafAllocTable(pool, "no_leaf_alloc", "the test database");
        LeaseStoreException error = assertThrows(LeaseStoreException.class, absent::counters);
        assertTrue(error.getMessage().contains("the table no_leaf_alloc does not exist"), error.getMessage());
    }

    @Test
    void aTableNameThatCouldCarrySqlIsRefused() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> new LeafAllocTable(pool, "leaf_alloc; DROP TABLE x", "the test database"));
        assertTrue(error.getMessage().contains("is not a plain SQL name"), error.getMessage());
    }
}
