package dev.cosid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.time.Clock;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Many virtual threads issue ids at once (Java 21 and later; skipped as an assumption on 17). The
 * executor is reached by reflection so that the module still compiles for release 17.
 */
class VirtualThreadsTest {

    private static final int THREADS = 2_000;
    private static final int PER_THREAD = 500;

    private static ExecutorService virtualThreads() {
        Method factory;
        try {
            factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException e) {
            factory = null;
        }
        assumeTrue(factory != null, "virtual threads need Java 21 or later; this is Java "
                + Runtime.version().feature());
        try {
            return (ExecutorService) factory.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create the virtual thread executor", e);
        }
    }

    @Test
    void idsFromThousandsOfVirtualThreadsAtOnceAreDistinctAndIncreasePerThread() throws Exception {
        ExecutorService executor = virtualThreads();
        for (boolean lead : new boolean[] {false, true}) {
            try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("virtual")
                    .store(new InMemoryLeaseStore(Clock.system())).maxWait(Duration.ofSeconds(30))
                    .maxLead(lead ? Duration.ofSeconds(1) : Duration.ZERO).tickingClock(lead).start()) {
                SnowflakeId ids = runtime.snowflake("order");
                CountDownLatch ready = new CountDownLatch(THREADS);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<long[]>> results = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    results.add(executor.submit(() -> {
                        ready.countDown();
                        go.await();
                        long[] mine = new long[PER_THREAD];
                        for (int i = 0; i < PER_THREAD; i++) {
                            mine[i] = i % 10 == 9 ? ids.nextIds(3)[2] : ids.nextId();
                        }
                        return mine;
                    }));
                }
                assertTrue(ready.await(60, TimeUnit.SECONDS), "every virtual thread started");
                go.countDown();
                long[] all = new long[THREADS * PER_THREAD];
                int n = 0;
                for (Future<long[]> result : results) {
                    long[] mine = result.get(60, TimeUnit.SECONDS);
                    for (int i = 1; i < mine.length; i++) {
                        assertTrue(mine[i] > mine[i - 1], "one thread's ids increase");
                    }
                    System.arraycopy(mine, 0, all, n, mine.length);
                    n += mine.length;
                }
                assertEquals(all.length, java.util.Arrays.stream(all).distinct().count(), "every id is distinct");
            }
        }
        executor.shutdown();
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS));
    }
}
