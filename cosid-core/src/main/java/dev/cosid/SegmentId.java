package dev.cosid;

/**
 * A generator of dense, increasing ids from one shared counter of the store: the runtime reserves
 * ranges of the counter ahead of use and hands their ids out without a store call.
 *
 * <p>Ids are positive. Every id a generator returns is larger than every id it returned before the
 * call began, from any thread; the ids of different runtimes on one name never repeat. A clean close
 * hands the unused tail back, so the next runtime continues at the last id + 1; a crash leaves a gap,
 * never a repeat. The call waits at most the runtime's {@code maxWait} for the store and then throws
 * {@link IdUnavailableException}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SegmentId orders = runtime.segment("orders");
 * long orderNumber = orders.nextId();
 * long[] batch = orders.nextIds(100);
 * }</pre>
 */
public interface SegmentId {

    /**
     * Issues one id.
     *
     * @return a new id, larger than every id this generator returned before the call began
     * @throws IdUnavailableException when every reserved range is used up and the store did not answer
     *     within the wait bound, or the generator is closed or stopped
     */
    long nextId();

    /**
     * Issues a batch of ids, in increasing order.
     *
     * @param count how many ids, at least 1
     * @return the ids
     * @throws IdUnavailableException as {@link #nextId()}; ids already taken for the batch are then
     *     never issued
     */
    long[] nextIds(int count);

    /** Returns the name of the counter. */
    String name();
}
