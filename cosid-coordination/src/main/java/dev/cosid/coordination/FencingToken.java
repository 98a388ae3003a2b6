package dev.cosid.coordination;

/**
 * The leadership epoch: the producer id and epoch that the coordinator minted, compared producer id
 * first, then epoch (the epoch alone wraps at {@code Short.MAX_VALUE}, when Kafka moves to a new
 * producer id with epoch 0).
 *
 * <h2>Example</h2>
 * <pre>{@code
 * FencingToken mine = FencingToken.parse("4001:7");
 * boolean deposed = current.supersedes(mine);
 * }</pre>
 *
 * @param producerId the producer id
 * @param producerEpoch the epoch within that producer id
 */
public record FencingToken(long producerId, short producerEpoch) implements Comparable<FencingToken> {

    /** The absence of a token; ranks below every minted token. */
    public static final FencingToken NO_EPOCH = new FencingToken(-1, (short) -1);

    /** Checks that the pair is minted or exactly {@link #NO_EPOCH}. */
    public FencingToken {
        boolean none = producerId == -1 && producerEpoch == -1;
        if (!none && (producerId < 0 || producerEpoch < 0)) {
            throw new CoordinationException("a fencing token has a non-negative producer id and epoch, not "
                    + producerId + ":" + producerEpoch);
        }
    }

    /**
     * Returns a minted token.
     *
     * @param producerId the producer id, not negative
     * @param producerEpoch the epoch, not negative
     * @return the token
     * @throws CoordinationException when the producer id or the epoch is negative
     */
    public static FencingToken of(long producerId, short producerEpoch) {
        if (producerId < 0 || producerEpoch < 0) {
            throw new CoordinationException("a fencing token has a non-negative producer id and epoch, not "
                    + producerId + ":" + producerEpoch);
        }
        return new FencingToken(producerId, producerEpoch);
    }

    /**
     * Parses {@code producerId:epoch}.
     *
     * @param text the text made by {@link #toString()}
     * @return the token
     * @throws NullPointerException when the text is null
     * @throws CoordinationException naming the text when it is not {@code producerId:epoch}
     */
    public static FencingToken parse(String text) {
        java.util.Objects.requireNonNull(text, "text");
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new CoordinationException("'" + text + "' is not producerId:epoch");
        }
        try {
            long id = Long.parseLong(text.substring(0, colon));
            short epoch = Short.parseShort(text.substring(colon + 1));
            return id == -1 && epoch == -1 ? NO_EPOCH : of(id, epoch);
        } catch (NumberFormatException e) {
            throw new CoordinationException("'" + text + "' is not producerId:epoch with a long and a short");
        }
    }

    /** Reports whether the coordinator minted this token. */
    public boolean minted() {
        return !equals(NO_EPOCH);
    }

    /**
     * Reports whether this token is newer than another.
     *
     * @param other the other token
     * @return true when this one ranks higher
     */
    public boolean supersedes(FencingToken other) {
        return compareTo(other) > 0;
    }

    @Override
    public int compareTo(FencingToken other) {
        int byId = Long.compare(producerId, other.producerId);
        return byId != 0 ? byId : Short.compare(producerEpoch, other.producerEpoch);
    }

    @Override
    public String toString() {
        return producerId + ":" + producerEpoch;
    }
}
