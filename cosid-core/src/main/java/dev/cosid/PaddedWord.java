package dev.cosid;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One long on a cache line of its own: the generator's state word is written by every id, and the
 * fields read beside it (layout constants, the cached window) must not share its line, or every CAS on
 * one core evicts them from the other. The padding lives in superclasses and a subclass, which the JVM
 * lays out in that order (the way Agrona pads its generator).
 */
final class PaddedWord extends PaddedWordRight {

    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(PaddedWordValue.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    long getVolatile() {
        return (long) VALUE.getVolatile(this);
    }

    /** Adds {@code delta} in one atomic step and returns the value before. */
    long getAndAdd(long delta) {
        return (long) VALUE.getAndAdd(this, delta);
    }

    boolean compareAndSet(long expected, long next) {
        return VALUE.compareAndSet(this, expected, next);
    }

    /** Sets the value to {@code next} if it is {@code expected}, and returns the value it found. */
    long compareAndExchange(long expected, long next) {
        return (long) VALUE.compareAndExchange(this, expected, next);
    }

    /**
     * A guess at the value, written after each fast-path exchange with a plain store: a compare-and-exchange
     * that starts from it saves reading the value first (about a nanosecond a call here), and one that starts
     * from a stale guess fails and returns the value.
     */
    long hint() {
        return hint;
    }

    void hint(long guess) {
        hint = guess;
    }
}

/** Padding before the value. */
@SuppressWarnings("unused")
abstract class PaddedWordLeft {
    long p01;
    long p02;
    long p03;
    long p04;
    long p05;
    long p06;
    long p07;
    long p08;
}

/** The value itself. */
abstract class PaddedWordValue extends PaddedWordLeft {
    volatile long value;
    /** Beside the value, on its cache line: the last value a fast-path exchange left. */
    long hint;
}

/** Padding after the value. */
@SuppressWarnings("unused")
abstract class PaddedWordRight extends PaddedWordValue {
    long p11;
    long p12;
    long p13;
    long p14;
    long p15;
    long p16;
    long p17;
    long p18;
}
