package dev.cosid.coordination;

/**
 * The two kinds of coordination record, by their wire code.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * RecordKind kind = RecordKind.ofCode((short) 1); // LEASE
 * }</pre>
 */
public enum RecordKind {
    /** A candidate's join record. */
    REGISTRATION((short) 0),
    /** The holder's lease record. */
    LEASE((short) 1);

    private final short code;

    RecordKind(short code) {
        this.code = code;
    }

    /** Returns the wire code. */
    public short code() {
        return code;
    }

    /**
     * Returns the kind of a wire code.
     *
     * @param code the code
     * @return the kind
     * @throws CoordinationException for an unknown code
     */
    public static RecordKind ofCode(short code) {
        for (RecordKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        throw new CoordinationException("unknown record kind " + code);
    }
}
