package dev.cosid;

/**
 * A generator of unique 63-bit ids in one id space, checked against its slot's lease window.
 *
 * <p>Ids from one generator strictly increase. The call waits at most the runtime's
 * {@code maxWait} and then throws {@link IdUnavailableException}; while the lease is lost it throws
 * {@link SlotLostException} at once.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * SnowflakeId ids = runtime.snowflake("order");
 * long id = ids.nextId();
 * long[] batch = ids.nextIds(100);
 * }</pre>
 */
public interface SnowflakeId {

    /**
     * Issues one id.
     *
     * @return a new id, larger than every id this generator issued before
     * @throws IdUnavailableException when no id can be issued within the wait bound
     */
    long nextId();

    /**
     * Issues a batch of ids, in increasing order.
     *
     * @param count how many ids, at least 1
     * @return the ids
     * @throws IdUnavailableException when the batch cannot be completed within the wait bound; ids
     *     already reserved for it are then never issued again
     */
    long[] nextIds(int count);

    /** Returns the layout of this generator's ids. */
    IdLayout layout();

    /** Returns the name of this generator's id space. */
    String name();

    /** Returns the ids issued and the calls refused so far; costs nothing per id. */
    GeneratorStats stats();
}
