package dev.cosid.coordination;

/**
 * A role that at most one leader holds, such as {@code controller}: non-empty, at most 249 UTF-8 bytes.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * Role role = Role.of("controller");
 * }</pre>
 *
 * @param name the role's name
 */
public record Role(String name) implements Comparable<Role> {

    /** Checks the name. */
    public Role {
        Names.require("role", name);
    }

    /**
     * Returns the role of a name.
     *
     * @param name the name
     * @return the role
     * @throws NullPointerException when the name is null
     * @throws CoordinationException when the name is empty or has more than 249 UTF-8 bytes
     */
    public static Role of(String name) {
        return new Role(name);
    }

    @Override
    public int compareTo(Role other) {
        return name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return name;
    }
}
