package dev.cosid.testkit.servers;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a process of a test runs on a network the test made: a network namespace with an address on the network
 * between the test's places, which a cut can silence, and a control address on a link of its own to the test's
 * namespace, which no cut touches. A side of a {@link NetworkPartition} and a host of a {@link StarNetwork} are
 * places; a {@link ServerProcess} can run in either.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * NetworkPlace place = star.host("kafka-1");
 * new ProcessBuilder(place.inside(List.of("ip", "addr"))).start(); // runs inside the place's namespace
 * }</pre>
 */
public interface NetworkPlace {

    /** Returns the place's short name, for directories and messages. */
    String name();

    /** Returns the network namespace's name. */
    String namespace();

    /** Returns the place's address on the network between the places: what servers advertise and peers reach. */
    String address();

    /** Returns the place's address on its own link to the test's namespace, reachable whatever is cut. */
    String controlAddress();

    /**
     * Returns a command that runs inside this place.
     *
     * @param command the command
     * @return {@code ip netns exec NAMESPACE} and the command
     */
    default List<String> inside(List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace()));
        full.addAll(command);
        return full;
    }
}
