package dev.cosid.time;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lincheck.LincheckBudget;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The ticking clock's reads against its ticks and its close, checked by Lincheck against a sequential
 * specification: a tick reads the source and shows that reading; an open clock shows its last tick; a
 * closed clock reads its source, whatever a tick in flight does. One thread ticks, as the clock's own thread
 * (or a simulation) does; reads and the close run beside it.
 */
class TickingClockLincheckTest {

    /** A source that moves one millisecond forward on every reading, so each reading is told apart. */
    static final class SteppingClock implements Clock {
        private final AtomicLong now = new AtomicLong();

        @Override
        public long nowMillis() {
            return now.incrementAndGet();
        }

        @Override
        public long monotonicNanos() {
            return now.get() * 1_000_000L;
        }

        @Override
        public void park(long nanos) {
        }
    }

    /** What the test drives: the ticking clock, or a broken copy of it. */
    interface Ticking {
        long nowMillis();

        long tick();

        void close();
    }

    /** The operations Lincheck calls, on a fresh clock for every scenario. */
    public static class Operations {
        private final Ticking clock;

        public Operations() {
            TickingClock real = TickingClock.manual(new SteppingClock());
            clock = new Ticking() {
                @Override
                public long nowMillis() {
                    return real.nowMillis();
                }

                @Override
                public long tick() {
                    return real.tick();
                }

                @Override
                public void close() {
                    real.close();
                }
            };
        }

        Operations(FlawedTickingClock broken) {
            clock = new Ticking() {
                @Override
                public long nowMillis() {
                    return broken.nowMillis();
                }

                @Override
                public long tick() {
                    return broken.tick();
                }

                @Override
                public void close() {
                    broken.close();
                }
            };
        }

        @Operation
        public long nowMillis() {
            return clock.nowMillis();
        }

        /** One ticking thread, as the clock's own thread or a simulation. */
        @Operation(nonParallelGroup = "ticker")
        public long tick() {
            return clock.tick();
        }

        @Operation
        public void close() {
            clock.close();
        }
    }

    /** The clock whose tick checks the closed mark and then writes. */
    public static final class TickWithoutCas extends Operations {
        public TickWithoutCas() {
            super(FlawedTickingClock.manual(new SteppingClock()));
        }
    }

    /** What the clock promises, one call at a time. */
    public static final class Specification {
        private long source = 1; // the reading the constructor showed
        private long shown = 1;
        private boolean closed;

        public long nowMillis() {
            return closed ? ++source : shown;
        }

        public long tick() {
            long now = ++source;
            if (!closed) {
                shown = now;
            }
            return now;
        }

        public void close() {
            closed = true;
        }
    }

    @Test
    void readsTicksAndCloseAreLinearizableUnderModelChecking() {
        LincheckBudget.modelChecking(10, 100).sequentialSpecification(Specification.class).check(Operations.class);
    }

    @Test
    void readsTicksAndCloseAreLinearizableUnderStress() {
        LincheckBudget.stress(5, 100).sequentialSpecification(Specification.class).check(Operations.class);
    }

    /**
     * The tick as it was before the fix, a check of the closed mark and then a plain write: a close between
     * the two is undone, and the closed clock shows that tick's reading for good. In the test command;
     * {@code -Dcosid.lincheck.broken=false} leaves it out.
     */
    @Test
    @DisabledIfSystemProperty(named = "cosid.lincheck.broken", matches = "false")
    void aTickThatOverwritesACloseIsCaught() {
        LincheckAssertionError failure = assertThrows(LincheckAssertionError.class, () -> LincheckBudget
                .modelChecking(10, 100).sequentialSpecification(Specification.class).check(TickWithoutCas.class));
        System.out.println(TickWithoutCas.class.getSimpleName() + ":" + failure.getMessage());
        assertTrue(failure.getMessage().contains("= Invalid execution results ="), failure.getMessage());
    }
}
