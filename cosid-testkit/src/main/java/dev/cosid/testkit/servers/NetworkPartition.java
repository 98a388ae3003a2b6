package dev.cosid.testkit.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Two network namespaces of this test, side A and side B, joined by a veth pair that {@link #cut()} drops every
 * packet of, both ways, and {@link #heal()} opens again: a real network partition, with every process on each
 * side alive.
 *
 * <p>Each side has its address on the link between the sides ({@link Side#address()}: what servers advertise and
 * clients connect to) and a control address on a second veth pair to the test's own namespace
 * ({@link Side#controlAddress()}): the test reaches every server through it, whether the sides are cut or not,
 * and no route leads from one side to the other but the cuttable link. All addresses lie in one private /28
 * ({@code 10.231.x.y}) chosen per run and locked under the temporary directory, so that test JVMs side by side
 * never share one. Processes started with {@link #start(Side, List, Path)} run inside a side through
 * {@code ip netns exec}; {@link #close()} kills them, then deletes the namespaces and veths, also from a
 * shutdown hook when a test dies first.
 *
 * <p>Needs root and {@code ip} from iproute2: without them the calling test is skipped with a message, unless
 * {@code COSID_REQUIRE_SERVERS=true}, which makes it a failure.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (NetworkPartition net = NetworkPartition.created()) {
 *     Process server = net.start(net.a(), List.of("redis-server", "--bind", "0.0.0.0"), log);
 *     net.cut();   // A and B no longer reach each other; the test still reaches both
 *     net.heal();
 * }
 * }</pre>
 */
public final class NetworkPartition implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Duration COMMAND_BOUND = Duration.ofSeconds(20);

    /**
     * One side of the partition.
     *
     * @param name "a" or "b"
     * @param namespace the network namespace's name
     * @param address the side's address on the link between the sides
     * @param controlAddress the side's address on its link to the test's own namespace
     */
    public record Side(String name, String namespace, String address, String controlAddress) implements NetworkPlace {

        /**
         * Returns a command that runs inside this side.
         *
         * @param command the command
         * @return {@code ip netns exec NAMESPACE} and the command
         */
        @Override
        public List<String> inside(List<String> command) {
            List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
            full.addAll(command);
            return full;
        }
    }

    private final AddressBlocks.Block block;
    private final Side a;
    private final Side b;
    private final String linkA;
    private final String linkB;
    private final List<String> rootLinks = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final Thread hook;
    private boolean cut;
    private boolean closed;

    private NetworkPartition(AddressBlocks.Block block) {
        this.block = block;
        String tag = ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        a = new Side("a", "cosid-" + tag + "-a", block.address(1), block.address(6));
        b = new Side("b", "cosid-" + tag + "-b", block.address(2), block.address(10));
        linkA = "cz" + block.number() + "a";
        linkB = "cz" + block.number() + "b";
        hook = new Thread(this::close, "cosid-partition-cleanup");
    }

    /**
     * Creates both namespaces and their links, or skips the calling test when this machine cannot (not root, no
     * {@code ip}, no network namespaces).
     *
     * @return the two sides, joined
     */
    public static NetworkPartition created() {
        String missing = unavailable();
        if (missing != null) {
            String message = "a network partition needs " + missing;
            if (Servers.required()) {
                Assertions.fail(message + " (COSID_REQUIRE_SERVERS=true)");
            }
            Assumptions.abort(message + "; skipping");
        }
        NetworkPartition partition = new NetworkPartition(AddressBlocks.lock(1).get(0));
        Runtime.getRuntime().addShutdownHook(partition.hook);
        try {
            partition.create();
        } catch (RuntimeException e) {
            partition.close();
            throw e;
        }
        return partition;
    }

    /** Says what this machine lacks for network namespaces of a test, or null when it has all of it. */
    static String unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "root (ip netns add), and this build runs as " + System.getProperty("user.name");
        }
        if (Servers.find("ip", List.of("/usr/sbin", "/sbin", "/usr/bin")).isEmpty()) {
            return "ip: apt-get install iproute2";
        }
        if (Servers.find("tc", List.of("/usr/sbin", "/sbin", "/usr/bin")).isEmpty()) {
            return "tc: apt-get install iproute2";
        }
        String probe = "cosid-probe-" + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        String added = ServerProcess.run(List.of("ip", "netns", "add", probe), COMMAND_BOUND, true);
        ServerProcess.run(List.of("ip", "netns", "del", probe), COMMAND_BOUND, true);
        return added.isBlank() ? null : "network namespaces (ip netns add said: " + added.strip() + ")";
    }

    private void create() {
        ip("netns", "add", a.namespace());
        ip("netns", "add", b.namespace());
        // the link between the sides: .1 (A) and .2 (B)
        ip("link", "add", linkA, "type", "veth", "peer", "name", linkB);
        ip("link", "set", linkA, "netns", a.namespace());
        ip("link", "set", linkB, "netns", b.namespace());
        ip("-n", a.namespace(), "addr", "add", a.address() + "/30", "dev", linkA);
        ip("-n", b.namespace(), "addr", "add", b.address() + "/30", "dev", linkB);
        for (Side side : List.of(a, b)) {
            ip("-n", side.namespace(), "link", "set", "lo", "up");
            ip("-n", side.namespace(), "link", "set", side == a ? linkA : linkB, "up");
        }
        // the control links: this namespace .5 to A's .6, .9 to B's .10; no forwarding, so no path between A and B
        control(a, "cz" + block.number() + "ra", "cz" + block.number() + "ca", block.address(5));
        control(b, "cz" + block.number() + "rb", "cz" + block.number() + "cb", block.address(9));
    }

    private void control(Side side, String rootEnd, String sideEnd, String rootAddress) {
        ip("link", "add", rootEnd, "type", "veth", "peer", "name", sideEnd);
        rootLinks.add(rootEnd);
        ip("link", "set", sideEnd, "netns", side.namespace());
        ip("addr", "add", rootAddress + "/30", "dev", rootEnd);
        ip("link", "set", rootEnd, "up");
        ip("-n", side.namespace(), "addr", "add", side.controlAddress() + "/30", "dev", sideEnd);
        ip("-n", side.namespace(), "link", "set", sideEnd, "up");
    }

    static void ip(String... args) {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        ServerProcess.run(command, COMMAND_BOUND, false);
    }

    /** Returns side A. */
    public Side a() {
        return a;
    }

    /** Returns side B. */
    public Side b() {
        return b;
    }

    /**
     * Starts a process inside a side, its output appended to a file; {@link #close()} kills it.
     *
     * @param side where it runs
     * @param command the command
     * @param output where its output and error output go
     * @return the process
     */
    public synchronized Process start(Side side, List<String> command, Path output) {
        return start(side, command, output, output);
    }

    /**
     * Starts a process inside a side, its output and its error output each appended to a file (they may be one);
     * {@link #close()} kills it.
     *
     * @param side where it runs
     * @param command the command
     * @param output where its output goes
     * @param errors where its error output goes
     * @return the process
     */
    public synchronized Process start(Side side, List<String> command, Path output, Path errors) {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        try {
            ProcessBuilder builder = new ProcessBuilder(side.inside(command))
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
            if (output.equals(errors)) {
                builder.redirectErrorStream(true);
            } else {
                builder.redirectError(ProcessBuilder.Redirect.appendTo(errors.toFile()));
            }
            Process process = builder.start();
            processes.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command + " in " + side.namespace(), e);
        }
    }

    /**
     * Drops every packet between the sides, both ways ({@code pfifo limit 0} on both ends of their link); the
     * control links stay up.
     */
    public synchronized void cut() {
        if (cut) {
            throw new IllegalStateException(this + " is already cut");
        }
        run(a, List.of("tc", "qdisc", "add", "dev", linkA, "root", "pfifo", "limit", "0"));
        run(b, List.of("tc", "qdisc", "add", "dev", linkB, "root", "pfifo", "limit", "0"));
        cut = true;
    }

    /** Lets packets between the sides pass again. */
    public synchronized void heal() {
        if (!cut) {
            throw new IllegalStateException(this + " is not cut");
        }
        run(a, List.of("tc", "qdisc", "del", "dev", linkA, "root"));
        run(b, List.of("tc", "qdisc", "del", "dev", linkB, "root"));
        cut = false;
    }

    /** Reports whether the sides are cut off from each other now. */
    public synchronized boolean isCut() {
        return cut;
    }

    private static void run(Side side, List<String> command) {
        ServerProcess.run(side.inside(command), COMMAND_BOUND, false);
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
        for (Side side : List.of(a, b)) {
            ServerProcess.run(List.of("ip", "netns", "del", side.namespace()), COMMAND_BOUND, true);
        }
        for (String link : rootLinks) {
            ServerProcess.run(List.of("ip", "link", "del", link), COMMAND_BOUND, true); // gone with its peer already
        }
        block.release();
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs now
            }
        }
    }

    @Override
    public String toString() {
        return "NetworkPartition[" + a.namespace() + " " + a.address() + " | " + b.namespace() + " " + b.address()
                + (cut ? ", cut" : "") + "]";
    }
}
