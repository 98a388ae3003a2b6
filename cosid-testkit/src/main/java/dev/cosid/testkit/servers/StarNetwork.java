package dev.cosid.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts of this test, each a network namespace, joined by a bridge in a hub namespace of their own: a star, in
 * which {@link #cut(Host)} drops every packet between one host and all the others, both ways, and
 * {@link #heal(Host)} lets them pass again. Where {@link NetworkPartition} has two sides, a star has as many hosts
 * as a test names, so that it can cut one broker of three off from the other two, or one client process off from
 * every broker, with every process alive.
 *
 * <p>Each host has its address on the star ({@link Host#address()}: what servers advertise and clients connect to)
 * and a control address on a veth pair of its own to the test's namespace ({@link Host#controlAddress()}), which
 * no cut touches: the test reaches every host through it, and no route leads from one host to another but the star.
 * The test's namespace is on the star too ({@link #testAddress()}), on a link that is never cut, so a client in the
 * test's own JVM sees the star as a client on an uncut host does. A cut puts {@code pfifo limit 0} on both ends of
 * the host's link to the hub (this kernel has no netem).
 *
 * <p>The addresses lie in private /28 blocks of {@code 10.231.0.0/16} chosen per run and locked under the temporary
 * directory, shared with {@link NetworkPartition}, so that test JVMs side by side never share one: the star's own
 * block, and one block of control links per four hosts. Only addresses inside these blocks are used. Processes
 * started with {@link #start(Host, List, Path)} run inside a host through {@code ip netns exec}; {@link #close()}
 * kills them, then deletes the namespaces and links, also from a shutdown hook when a test dies first.
 *
 * <p>Needs root and {@code ip} and {@code tc} from iproute2: without them the calling test is skipped with a
 * message, unless {@code COSID_REQUIRE_SERVERS=true}, which makes it a failure.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (StarNetwork net = StarNetwork.created("kafka-1", "kafka-2", "kafka-3", "client")) {
 *     net.cut(net.host("kafka-2"));  // kafka-2 reaches no other host, and no host reaches it
 *     net.heal(net.host("kafka-2"));
 * }
 * }</pre>
 */
public final class StarNetwork implements AutoCloseable {

    /** The most hosts a star has: its /28 holds the test's address and thirteen hosts'. */
    public static final int MAX_HOSTS = 13;
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,19}");
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(20);

    /**
     * One host of the star.
     *
     * @param name the name the test gave it
     * @param namespace the network namespace's name
     * @param address the host's address on the star
     * @param controlAddress the host's address on its link to the test's own namespace
     */
    public record Host(String name, String namespace, String address, String controlAddress) implements NetworkPlace {
    }

    private final List<AddressBlocks.Block> blocks;
    private final String hub;
    private final String tag;
    private final String testAddress;
    private final Map<String, Host> hosts = new LinkedHashMap<>();
    /** Per host, its end of its star link (inside the host) and the hub's end. */
    private final Map<Host, String[]> links = new LinkedHashMap<>();
    private final List<String> rootLinks = new ArrayList<>();
    private final Set<Host> cut = new HashSet<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread hook;
    private boolean closed;

    private StarNetwork(List<AddressBlocks.Block> blocks, List<String> names) {
        this.blocks = blocks;
        AddressBlocks.Block star = blocks.get(0);
        this.tag = "cs" + star.number();
        String prefix = "cosid-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet() + "-";
        this.hub = prefix + "hub";
        this.testAddress = star.address(1);
        for (int i = 0; i < names.size(); i++) {
            AddressBlocks.Block control = blocks.get(1 + i / 4);
            Host host = new Host(names.get(i), prefix + names.get(i), star.address(2 + i),
                    control.address((i % 4) * 4 + 2));
            hosts.put(host.name(), host);
            links.put(host, new String[] {tag + "h" + i, tag + "s" + i});
        }
        hook = new Thread(this::close, "cosid-star-cleanup");
    }

    /**
     * Creates the hub, one namespace per host and their links, or skips the calling test when this machine cannot
     * (not root, no {@code ip} or {@code tc}, no network namespaces).
     *
     * @param names the hosts' names: lower-case letters, digits and dashes, at most 20, distinct; 1 to
     *     {@value #MAX_HOSTS} of them
     * @return the star, every host reaching every other
     * @throws IllegalArgumentException for a bad or repeated name, or too many
     */
    public static StarNetwork created(String... names) {
        List<String> list = List.of(names);
        if (list.isEmpty() || list.size() > MAX_HOSTS) {
            throw new IllegalArgumentException(list.size() + " hosts are not between 1 and " + MAX_HOSTS);
        }
        for (String name : list) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("host name '" + name + "' is not 1 to 20 lower-case letters, "
                        + "digits and dashes");
            }
        }
        if (new HashSet<>(list).size() != list.size()) {
            throw new IllegalArgumentException("host names repeat: " + list);
        }
        String missing = NetworkPartition.unavailable();
        if (missing != null) {
            String message = "a star network needs " + missing;
            if (Servers.required()) {
                Assertions.fail(message + " (COSID_REQUIRE_SERVERS=true)");
            }
            Assumptions.abort(message + "; skipping");
        }
        StarNetwork star = new StarNetwork(AddressBlocks.lock(1 + (list.size() + 3) / 4), list);
        Runtime.getRuntime().addShutdownHook(star.hook);
        try {
            star.create();
        } catch (RuntimeException e) {
            star.close();
            throw e;
        }
        return star;
    }

    private void create() {
        ip("netns", "add", hub);
        ip("-n", hub, "link", "add", "hub0", "type", "bridge");
        ip("-n", hub, "link", "set", "hub0", "up");
        // the test's own link to the hub: never cut
        ip("link", "add", tag + "t", "type", "veth", "peer", "name", tag + "u");
        rootLinks.add(tag + "t");
        joinHub(tag + "u");
        ip("addr", "add", testAddress + "/28", "dev", tag + "t");
        ip("link", "set", tag + "t", "up");
        int i = 0;
        for (Host host : hosts.values()) {
            String[] link = links.get(host);
            ip("netns", "add", host.namespace());
            ip("-n", host.namespace(), "link", "set", "lo", "up");
            ip("link", "add", link[0], "type", "veth", "peer", "name", link[1]);
            ip("link", "set", link[0], "netns", host.namespace());
            joinHub(link[1]);
            ip("-n", host.namespace(), "addr", "add", host.address() + "/28", "dev", link[0]);
            ip("-n", host.namespace(), "link", "set", link[0], "up");
            // the control link: the test's .4k+1 to the host's .4k+2, a /30 of its own; no route beyond it
            String rootEnd = tag + "r" + i;
            String hostEnd = tag + "c" + i;
            ip("link", "add", rootEnd, "type", "veth", "peer", "name", hostEnd);
            rootLinks.add(rootEnd);
            ip("link", "set", hostEnd, "netns", host.namespace());
            ip("addr", "add", blocks.get(1 + i / 4).address((i % 4) * 4 + 1) + "/30", "dev", rootEnd);
            ip("link", "set", rootEnd, "up");
            ip("-n", host.namespace(), "addr", "add", host.controlAddress() + "/30", "dev", hostEnd);
            ip("-n", host.namespace(), "link", "set", hostEnd, "up");
            i++;
        }
    }

    private void joinHub(String hubEnd) {
        ip("link", "set", hubEnd, "netns", hub);
        ip("-n", hub, "link", "set", hubEnd, "master", "hub0");
        ip("-n", hub, "link", "set", hubEnd, "up");
    }

    private static void ip(String... args) {
        NetworkPartition.ip(args);
    }

    /** Returns the hosts, in the order they were named. */
    public List<Host> hosts() {
        return List.copyOf(hosts.values());
    }

    /**
     * Returns a host by its name.
     *
     * @param name the name given to {@link #created(String...)}
     * @return the host
     * @throws IllegalArgumentException when no host has that name
     */
    public Host host(String name) {
        Host host = hosts.get(name);
        if (host == null) {
            throw new IllegalArgumentException("no host '" + name + "' in " + this);
        }
        return host;
    }

    /** Returns the test's own address on the star, on a link that is never cut. */
    public String testAddress() {
        return testAddress;
    }

    /**
     * Starts a process inside a host, its output and error output appended to a file; {@link #close()} kills it.
     *
     * @param host where it runs
     * @param command the command
     * @param output where its output and error output go
     * @return the process
     */
    public synchronized Process start(Host host, List<String> command, Path output) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        requireOwn(host);
        try {
            Process process = new ProcessBuilder(host.inside(command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command + " in " + host.namespace(), e);
        }
    }

    /**
     * Drops every packet between a host and every other host and the test's star address, both ways
     * ({@code pfifo limit 0} on both ends of its link to the hub); its control link stays up.
     *
     * @param host the host to cut off
     * @throws IllegalStateException when it is cut off already
     */
    public synchronized void cut(Host host) {
        requireOwn(host);
        if (cut.contains(host)) {
            throw new IllegalStateException(host.name() + " is already cut off in " + this);
        }
        String[] link = links.get(host);
        tc(host.namespace(), "add", link[0], "root", "pfifo", "limit", "0");
        tc(hub, "add", link[1], "root", "pfifo", "limit", "0");
        cut.add(host);
    }

    /**
     * Lets packets between a host and the others pass again.
     *
     * @param host a host cut off with {@link #cut(Host)}
     * @throws IllegalStateException when it is not cut off
     */
    public synchronized void heal(Host host) {
        requireOwn(host);
        if (!cut.contains(host)) {
            throw new IllegalStateException(host.name() + " is not cut off in " + this);
        }
        String[] link = links.get(host);
        tc(host.namespace(), "del", link[0], "root");
        tc(hub, "del", link[1], "root");
        cut.remove(host);
    }

    /**
     * Reports whether a host is cut off now.
     *
     * @param host a host of this star
     * @return whether it is cut off
     */
    public synchronized boolean isCut(Host host) {
        requireOwn(host);
        return cut.contains(host);
    }

    /** Fails for a host of another star. */
    void requireOwn(Host host) {
        if (!host.equals(hosts.get(host.name()))) {
            throw new IllegalArgumentException(host + " is not a host of " + this);
        }
    }

    private static void tc(String namespace, String verb, String... rest) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, "tc", "qdisc", verb, "dev"));
        command.addAll(List.of(rest));
        ServerProcess.run(command, COMMAND_BOUND, false);
    }

    /** Kills every process started here (SIGKILL, descendants too), then deletes the namespaces and links. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Process process : processes) {
            List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
            all.add(0, process.toHandle());
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle handle : all) {
                try {
                    handle.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // deleting the namespace below does not need the process gone
                }
            }
        }
        for (Host host : hosts.values()) {
            ServerProcess.run(List.of("ip", "netns", "del", host.namespace()), COMMAND_BOUND, true);
        }
        ServerProcess.run(List.of("ip", "netns", "del", hub), COMMAND_BOUND, true);
        for (String link : rootLinks) {
            ServerProcess.run(List.of("ip", "link", "del", link), COMMAND_BOUND, true); // gone with its peer already
        }
        blocks.forEach(AddressBlocks.Block::release);
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs now
            }
        }
    }

    @Override
    public synchronized String toString() {
        StringBuilder text = new StringBuilder("StarNetwork[test ").append(testAddress);
        for (Host host : hosts.values()) {
            text.append(", ").append(host.name()).append(' ').append(host.address());
            if (cut.contains(host)) {
                text.append(" (cut)");
            }
        }
        return text.append(']').toString();
    }
}
