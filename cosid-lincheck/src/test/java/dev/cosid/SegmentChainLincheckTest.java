package dev.cosid;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lincheck.BatchLinearizabilityVerifier;
import dev.cosid.lincheck.IdSpecification;
import dev.cosid.lincheck.LincheckBudget;
import dev.cosid.time.ManualClock;
import dev.cosid.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The segment chain under Lincheck: {@code nextId} and {@code nextIds} against range switches, prefetches
 * landing and {@code close}, on ranges of two ids so that nearly every call switches, checked against a dense
 * counter (the {@link Specification}): ids strictly increasing in the order of the draws, never repeated,
 * never skipped, and {@code close} returning the exact last id with the store's counter handed back to it.
 *
 * <p>The store, the clock and the scheduler are the in-memory ones: a prefetch lands when a {@code prefetch}
 * operation runs the scheduler's due tasks. The chain starts with more ranges than a scenario draws and does
 * not wait, so every call answers at once: a waiting caller depends on the one that asked for the fetch first,
 * which Lincheck's model checking (3.7) reports as a hang instead of switching back to it.
 */
public class SegmentChainLincheckTest {

    private static final long T0 = 1_800_000_000_000L;
    private static final String NAMESPACE = "shop";
    private static final String NAME = "orders";
    /** Ranges of two ids, never more or fewer, so the specification knows where each range ends. */
    static final long STEP = 2;
    private static final SegmentPolicy POLICY = SegmentPolicy.of(STEP, STEP, Duration.ofMillis(12));

    /** The operations Lincheck calls, on a fresh structure for every scenario. */
    public static class Operations {

        /** What the test drives: the chain, or a broken copy of it. */
        interface Chain {
            long nextId();

            long[] nextIds(int count);

            long close();
        }

        private final ManualClock clock = new ManualClock(T0);
        private final InMemoryLeaseStore store = new InMemoryLeaseStore(clock);
        private final ManualScheduler scheduler = new ManualScheduler(clock);
        private final Chain chain;

        public Operations() {
            this(null);
        }

        Operations(FlawedSegmentChain.Flaw flaw) {
            store.register(NAMESPACE, new NamespaceRecord(1024, 1_000));
            SegmentRange first = store.reserveSegment(NAMESPACE, NAME, POLICY.firstStep());
            // no wait: the chain is stocked for a whole scenario, so a caller that found it empty is a failure
            long maxWait = 0;
            if (flaw == null) {
                SegmentChain real = SegmentChain.start(NAMESPACE, NAME, store, clock, scheduler, CosIdListener.NOOP,
                        POLICY, maxWait, first);
                chain = new Chain() {
                    @Override
                    public long nextId() {
                        return real.nextId();
                    }

                    @Override
                    public long[] nextIds(int count) {
                        return real.nextIds(count);
                    }

                    @Override
                    public long close() {
                        return real.close();
                    }
                };
            } else {
                FlawedSegmentChain broken = FlawedSegmentChain.start(flaw, NAMESPACE, NAME, store, clock, scheduler,
                        CosIdListener.NOOP, POLICY, maxWait, first);
                chain = new Chain() {
                    @Override
                    public long nextId() {
                        return broken.nextId();
                    }

                    @Override
                    public long[] nextIds(int count) {
                        return broken.nextIds(count);
                    }

                    @Override
                    public long close() {
                        return broken.close();
                    }
                };
            }
            // two ids a millisecond: the prefetch keeps that rate times the prefetch time ahead, 24 ids in 12 ranges,
            // more than a scenario draws (ten calls of at most two ids), and tops it up once half is drawn
            scheduler.runDue();
            chain.nextIds(2);
            clock.advanceMillis(1);
            scheduler.runDue();
        }

        @Operation
        public Object nextId() {
            try {
                return chain.nextId();
            } catch (IdUnavailableException refused) {
                return "refused " + refused.reason();
            }
        }

        @Operation
        public Object nextIds(@Param(gen = IntGen.class, conf = "1:2") int count) {
            try {
                List<Long> ids = new ArrayList<>();
                for (long id : chain.nextIds(count)) {
                    ids.add(id);
                }
                return ids;
            } catch (IdUnavailableException refused) {
                return "refused " + refused.reason();
            }
        }

        /** Runs the due prefetch, if any: a range lands while callers draw. */
        @Operation
        public void prefetch() {
            scheduler.runDue();
        }

        /** Closes the chain: the last id issued, and the store's counter after the tail was handed back. */
        @Operation
        public List<Long> close() {
            long last = chain.close();
            return List.of(last, store.segments(NAMESPACE).getOrDefault(NAME, 0L));
        }
    }

    /**
     * The chain, one call at a time: a counter over ranges of {@link #STEP} ids. A draw takes ids from one range
     * only, so a batch that reaches a range's end draws again from the next; close returns the last id drawn
     * (0 when closed before) and leaves the store's counter there; after it every call is refused as closed.
     */
    public static final class Specification implements IdSpecification {
        /** The constructor drew the first range. */
        private long drawn = STEP;
        private boolean closed;

        @Override
        public IdSpecification copy() {
            Specification copy = new Specification();
            copy.drawn = drawn;
            copy.closed = closed;
            return copy;
        }

        @Override
        public Object apply(String operation, List<Object> arguments) {
            switch (operation) {
                case "nextId":
                    return closed ? "refused CLOSED" : (Object) (++drawn);
                case "prefetch":
                    return null;
                case "close":
                    long last = closed ? 0 : drawn;
                    closed = true;
                    return List.of(last, drawn);
                default:
                    throw new IllegalArgumentException(operation);
            }
        }

        @Override
        public Object draw(int wanted) {
            if (closed) {
                return "refused CLOSED";
            }
            long run = Math.min(wanted, STEP - drawn % STEP);
            List<Long> ids = new ArrayList<>();
            for (long i = 0; i < run; i++) {
                ids.add(++drawn);
            }
            return ids;
        }

        @Override
        public String state() {
            return drawn + (closed ? "c" : "o");
        }
    }

    /**
     * Runs every operation once outside Lincheck, so that class initialisation (the logger's, the exceptions')
     * happens before the first checked run: run inside it, it looks like a hang that the replay does not repeat.
     */
    @BeforeAll
    static void warmUp() {
        Operations operations = new Operations();
        operations.nextIds(3);
        operations.nextId();
        operations.prefetch();
        operations.close();
        operations.nextId();
        operations.nextIds(2);
    }

    /**
     * Model checking of the chain or a broken copy. The store's operations are atomic by contract (one
     * synchronized method each here), so Lincheck takes each as one step rather than switching threads inside
     * the JDK code it runs.
     */
    private static void check(Class<? extends Operations> test) {
        LincheckBudget.modelChecking(8, 80)
                .addGuarantee(forClasses(InMemoryLeaseStore.class.getName()).allMethods().treatAsAtomic())
                .sequentialSpecification(Specification.class)
                .verifier(BatchLinearizabilityVerifier.class)
                .check(test);
    }

    /**
     * Runs the model checking, with the budget of the test command, on a broken copy: it must fail, naming
     * results no sequential run gives. These negative controls run in the test command;
     * {@code -Dcosid.lincheck.broken=false} leaves them out (docs/testing.md).
     */
    private static void caught(Class<? extends Operations> broken) {
        LincheckAssertionError failure = assertThrows(LincheckAssertionError.class, () -> check(broken));
        // the report of what Lincheck found, kept in the test's output (docs/testing.md quotes them)
        System.out.println(broken.getSimpleName() + ":" + failure.getMessage());
        assertTrue(failure.getMessage().contains("= Invalid execution results ="), failure.getMessage());
    }

    @Test
    void drawsSwitchesPrefetchesAndCloseAreLinearizableUnderModelChecking() {
        check(Operations.class);
    }

    @Test
    void drawsSwitchesPrefetchesAndCloseAreLinearizableUnderStress() {
        LincheckBudget.stress(10, 100)
                .sequentialSpecification(Specification.class)
                .verifier(BatchLinearizabilityVerifier.class)
                .check(Operations.class);
    }

    /** The chain with its range switch a plain write. */
    public static final class SwitchWithoutCas extends Operations {
        public SwitchWithoutCas() {
            super(FlawedSegmentChain.Flaw.SWITCH_WITHOUT_CAS);
        }
    }

    /** The chain whose close does not jump the last cursor. */
    public static final class CloseWithoutJump extends Operations {
        public CloseWithoutJump() {
            super(FlawedSegmentChain.Flaw.CLOSE_WITHOUT_JUMP);
        }
    }

    /** The chain that hands unused ranges back oldest first. */
    public static final class GiveBackOldestFirst extends Operations {
        public GiveBackOldestFirst() {
            super(FlawedSegmentChain.Flaw.GIVE_BACK_OLDEST_FIRST);
        }
    }

    @Test
    @DisabledIfSystemProperty(named = "cosid.lincheck.broken", matches = "false")
    void aRangeSwitchWithoutItsCompareAndSetIsCaught() {
        caught(SwitchWithoutCas.class);
    }

    @Test
    @DisabledIfSystemProperty(named = "cosid.lincheck.broken", matches = "false")
    void aCloseWithoutTheJumpIsCaught() {
        caught(CloseWithoutJump.class);
    }

    @Test
    @DisabledIfSystemProperty(named = "cosid.lincheck.broken", matches = "false")
    void aTailHandedBackOldestFirstIsCaught() {
        caught(GiveBackOldestFirst.class);
    }
}
