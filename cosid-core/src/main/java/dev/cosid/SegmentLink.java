package dev.cosid;

import dev.cosid.lease.SegmentRange;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One reserved range of a {@link SegmentChain}: its cursor is the next id to draw, {@code next} the
 * range reserved after it. The cursor, the range's bounds and the trigger share one cache line, padded
 * on both sides: a draw touches that line only, and the fields the fetch writes ({@code next}) lie on
 * another.
 */
final class SegmentLink extends SegmentLinkRight {

    final SegmentRange range;
    volatile SegmentLink next;

    /**
     * Creates a link whose cursor starts at the range's first id; without a range, the closed link, whose
     * cursor lies past every range.
     */
    SegmentLink(SegmentRange range, long closedCursor) {
        super(range == null ? 1 : range.first(), range == null ? 0 : range.last(),
                range == null ? closedCursor : range.first());
        this.range = range;
    }

    long size() {
        return last - first + 1;
    }
}

/** Padding before the cursor. */
@SuppressWarnings("unused")
abstract class SegmentLinkLeft {
    long p01;
    long p02;
    long p03;
    long p04;
    long p05;
    long p06;
    long p07;
    long p08;
}

/** The cursor, the bounds and the trigger: what a draw reads. */
abstract class SegmentLinkValue extends SegmentLinkLeft {

    private static final VarHandle CURSOR;

    static {
        try {
            CURSOR = MethodHandles.lookup().findVarHandle(SegmentLinkValue.class, "cursor", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long first;
    final long last;
    /**
     * The draw that asks for the next fetch, 0 for none: set by the fetch where half the distance is
     * left, so a chain of many small ranges wakes the fetch once per half distance, not per range.
     */
    volatile long trigger;
    @SuppressWarnings("unused") // read and written through CURSOR
    private volatile long cursor;

    SegmentLinkValue(long first, long last, long cursor) {
        this.first = first;
        this.last = last;
        this.cursor = cursor;
    }

    /** Takes {@code count} ids in one atomic add and returns the first; past {@code last} means none. */
    final long draw(long count) {
        return (long) CURSOR.getAndAdd(this, count);
    }

    final long cursor() {
        return (long) CURSOR.getVolatile(this);
    }
}

/** Padding after the cursor. */
@SuppressWarnings("unused")
abstract class SegmentLinkRight extends SegmentLinkValue {
    long p11;
    long p12;
    long p13;
    long p14;
    long p15;
    long p16;
    long p17;
    long p18;

    SegmentLinkRight(long first, long last, long cursor) {
        super(first, last, cursor);
    }
}
