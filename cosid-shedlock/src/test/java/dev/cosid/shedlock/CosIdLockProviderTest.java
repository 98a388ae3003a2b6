package dev.cosid.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.Role;
import dev.cosid.time.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider through ShedLock's own task executor, on one in-process store whose clock the test moves: the
 * token a task runs under, nested locks, lockAtMostFor and lockAtLeastFor by the store's clock, lock names, and
 * two providers on one real SQLite file.
 */
class CosIdLockProviderTest {

    private final ManualClock clock = new ManualClock(1_800_000_000_000L);
    private final InMemoryTransport store = new InMemoryTransport(clock);
    private final CosIdLockProvider a = new CosIdLockProvider(store, "a");
    private final CosIdLockProvider b = new CosIdLockProvider(store, "b");

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        // the instant is the host's, which the provider never reads: only the two extents count
        return new LockConfiguration(Instant.EPOCH, name, atMost, atLeast);
    }

    private static boolean ran(LockingTaskExecutor executor, LockConfiguration config, Runnable task)
            throws Throwable {
        return executor.executeWithLock(() -> {
            task.run();
            return null;
        }, config).wasExecuted();
    }

    @Test
    void outsideALockedTaskThereIsNoToken() {
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken());
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken("report"));
    }

    @Test
    void aTaskRunsUnderTheTokenItsLockMintedOnItsOwnThreadOnly() throws Throwable {
        List<Optional<FencingToken>> seen = new ArrayList<>();
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(a);
        assertTrue(ran(executor, config("report", Duration.ofMinutes(1), Duration.ZERO), () -> {
            seen.add(CosIdLockProvider.currentToken());
            seen.add(CompletableFuture.supplyAsync(CosIdLockProvider::currentToken).join());
        }));
        FencingToken token = seen.get(0).orElseThrow(() -> new AssertionError("no token inside the task"));
        assertEquals(Optional.of(token), store.describe(Role.of("report")), "the store's current token");
        assertEquals(Optional.empty(), seen.get(1), "another thread runs under no lock");
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken(), "gone once the task ended");
    }

    @Test
    void everyLockMintsATokenGreaterThanEveryOneBefore() throws Throwable {
        List<FencingToken> tokens = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(i % 2 == 0 ? a : b);
            assertTrue(ran(executor, config("report", Duration.ofMinutes(1), Duration.ZERO),
                    () -> tokens.add(CosIdLockProvider.currentToken().orElseThrow())));
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i).supersedes(tokens.get(i - 1)), tokens.toString());
        }
    }

    @Test
    void aNestedLockIsTheCurrentOneUntilItEndsAndTheOuterOneIsStillNamed() throws Throwable {
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(a);
        List<Optional<FencingToken>> seen = new ArrayList<>();
        assertTrue(ran(executor, config("outer", Duration.ofMinutes(1), Duration.ZERO), () -> {
            seen.add(CosIdLockProvider.currentToken());
            try {
                assertTrue(ran(executor, config("inner", Duration.ofMinutes(1), Duration.ZERO), () -> {
                    seen.add(CosIdLockProvider.currentToken());
                    seen.add(CosIdLockProvider.currentToken("outer"));
                }));
                // ShedLock runs a task under a lock its thread already holds without locking again
                assertTrue(ran(executor, config("outer", Duration.ofMinutes(1), Duration.ZERO),
                        () -> seen.add(CosIdLockProvider.currentToken())));
            } catch (Throwable e) {
                throw new AssertionError(e);
            }
            seen.add(CosIdLockProvider.currentToken());
        }));
        FencingToken outer = store.describe(Role.of("outer")).orElseThrow();
        FencingToken inner = store.describe(Role.of("inner")).orElseThrow();
        assertEquals(List.of(Optional.of(outer), Optional.of(inner), Optional.of(outer), Optional.of(outer),
                Optional.of(outer)), seen);
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken());
    }

    @Test
    void aLockHeldElsewhereIsRefusedUntilItsLockAtMostForEndsByTheStoresClock() {
        LockConfiguration config = config("report", Duration.ofSeconds(30), Duration.ZERO);
        SimpleLock held = a.lock(config).orElseThrow();
        FencingToken first = CosIdLockProvider.currentToken().orElseThrow();
        try {
            assertEquals(Optional.empty(), b.lock(config));
            clock.advance(Duration.ofSeconds(29));
            assertEquals(Optional.empty(), b.lock(config), "one second before the deadline");
            clock.advance(Duration.ofSeconds(1));
            SimpleLock taken = b.lock(config).orElseThrow(() -> new AssertionError("free at the deadline"));
            FencingToken second = CosIdLockProvider.currentToken().orElseThrow();
            assertTrue(second.supersedes(first));
            taken.unlock();
        } finally {
            held.unlock(); // too late: the store refuses the stale token, and the provider only logs it
        }
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken());
        assertThrows(IllegalStateException.class, held::unlock, "ShedLock's rule: a lock is released once");
    }

    @Test
    void lockAtLeastForKeepsTheLockAfterAShortTaskByTheStoresClock() throws Throwable {
        LockConfiguration config = config("report", Duration.ofMinutes(1), Duration.ofSeconds(10));
        assertTrue(ran(new DefaultLockingTaskExecutor(a), config, () -> clock.advance(Duration.ofSeconds(2))));
        LockingTaskExecutor other = new DefaultLockingTaskExecutor(b);
        assertFalse(ran(other, config, () -> { }), "held after the task, 2 s into its 10 s");
        clock.advance(Duration.ofMillis(7_999));
        assertFalse(ran(other, config, () -> { }), "held until 10 s after it was taken");
        clock.advance(Duration.ofMillis(1));
        assertTrue(ran(other, config, () -> { }), "free at 10 s");
    }

    @Test
    void withoutLockAtLeastForTheLockIsFreeAsSoonAsTheTaskEnds() throws Throwable {
        LockConfiguration config = config("report", Duration.ofMinutes(1), Duration.ZERO);
        assertTrue(ran(new DefaultLockingTaskExecutor(a), config, () -> { }));
        assertTrue(ran(new DefaultLockingTaskExecutor(b), config, () -> { }));
    }

    @Test
    void aLockNameOutsideTheRoleRuleIsRefusedWithTheRule() {
        String tooLong = "r".repeat(250);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.lock(config(tooLong, Duration.ofMinutes(1), Duration.ZERO)));
        assertEquals("ShedLock lock name '" + "r".repeat(40) + "...' is not a CosId role name (role '"
                + "r".repeat(40) + "...' has 250 UTF-8 bytes; at most 249 are allowed): use a name of 1 to 249 UTF-8 "
                + "bytes", e.getMessage());
        String accented = "é".repeat(125); // 125 characters, 250 bytes
        assertThrows(IllegalArgumentException.class, () -> a.lock(config(accented, Duration.ofMinutes(1),
                Duration.ZERO)));
        a.lock(config("r".repeat(249), Duration.ofMinutes(1), Duration.ZERO)).orElseThrow().unlock(); // 249 bytes
        a.lock(config("billing.eu-west_1 (nightly)", Duration.ofMinutes(1), Duration.ZERO)).orElseThrow().unlock();
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken());
    }

    @Test
    void aLockAtMostForBelowAMillisecondIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> a.lock(config("report", Duration.ofNanos(500), Duration.ZERO)));
        assertEquals("lock 'report': lockAtMostFor of PT0.0000005S is shorter than a millisecond", e.getMessage());
    }

    @Test
    void aStoreURLOpensTheStoreAndTwoProvidersOnOneSqliteFileShareItsLocks(@TempDir Path dir) throws Throwable {
        String url = "sqlite:" + dir.resolve("locks.db");
        try (CosIdLockProvider first = new CosIdLockProvider(url); CosIdLockProvider second =
                new CosIdLockProvider(url, "second")) {
            LockConfiguration config = config("report", Duration.ofMinutes(1), Duration.ZERO);
            List<Boolean> insideSecond = new ArrayList<>();
            // the second provider tries on another thread, as another instance would (ShedLock runs a task under a
            // lock name the thread already holds without asking the provider)
            assertTrue(ran(new DefaultLockingTaskExecutor(first), config, () -> insideSecond.add(
                    CompletableFuture.supplyAsync(() -> second.lock(config).isPresent()).join())));
            assertEquals(List.of(false), insideSecond, "refused while the first holds it");
            assertTrue(ran(new DefaultLockingTaskExecutor(second), config, () -> { }), "free once it was released");
        }
    }

    @Test
    void aURLNoModuleOpensIsRefusedWithTheSupportedPrefixes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new CosIdLockProvider("mongodb://localhost/app"));
        assertTrue(e.getMessage().startsWith("unknown store URL 'mongodb:...'; supported: memory:"), e.getMessage());
        assertTrue(e.getMessage().contains("jdbc:postgresql:"), e.getMessage());
    }
}
