package dev.cosid.coordination;

/**
 * A candidate for roles, such as a host name: non-empty, at most 249 UTF-8 bytes.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * MemberId me = MemberId.of("node-1");
 * }</pre>
 *
 * @param name the member's name
 */
public record MemberId(String name) implements Comparable<MemberId> {

    /** Checks the name. */
    public MemberId {
        Names.require("member", name);
    }

    /**
     * Returns the member of a name.
     *
     * @param name the name
     * @return the member
     * @throws NullPointerException when the name is null
     * @throws CoordinationException when the name is empty or has more than 249 UTF-8 bytes
     */
    public static MemberId of(String name) {
        return new MemberId(name);
    }

    @Override
    public int compareTo(MemberId other) {
        return name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return name;
    }
}
