package dev.cosid.testkit.servers;

import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * A database server run by a test as a child process on a free loopback port with its own data
 * directory, which the test can stop, restart (with or without its data), pause, resume and kill.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try (RedisServer redis = RedisServer.started()) {
 *     redis.pause();   // SIGSTOP: connections stay open, nothing answers
 *     redis.resume();  // SIGCONT
 *     redis.restart(); // data kept
 * }
 * }</pre>
 */
public abstract class ServerProcess implements ControlledServer {

    /** How long a server may take to become ready. */
    protected static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private static final Clock CLOCK = Clock.system();

    /** The server's own directory; its data lives below it. */
    protected final Path home;
    /** The loopback port the server listens on. */
    protected final int port;
    /** The side of a {@link NetworkPartition} the server runs in, or null for this namespace's loopback or a place. */
    protected final NetworkPartition.Side side;
    /** Where the server runs: a side, a host of a {@link StarNetwork}, or null for this namespace's loopback. */
    private final NetworkPlace place;
    /** The running server's main process, or null while stopped. */
    protected Process process;
    private boolean paused;
    /** Set when a start failed: {@link #close()} then keeps the directory, so the message's "see DIR" holds. */
    private boolean keepHome;

    /**
     * Prepares a server in a fresh directory.
     *
     * @param name a short name for directories and messages
     * @param parent where the server's directory goes
     */
    protected ServerProcess(String name, Path parent) {
        this(name, parent, (NetworkPlace) null);
    }

    /**
     * Prepares a server in a fresh directory that runs inside one side of a network partition: it listens on
     * every address of that side, advertises the side's address and is asked for readiness on its control address.
     *
     * @param name a short name for directories and messages
     * @param parent where the server's directory goes
     * @param side where it runs, or null for this namespace's loopback
     */
    protected ServerProcess(String name, Path parent, NetworkPartition.Side side) {
        this(name, parent, (NetworkPlace) side);
    }

    /**
     * Prepares a server in a fresh directory that runs in a place of a network of the test (a side of a
     * {@link NetworkPartition}, a host of a {@link StarNetwork}): it listens on every address of that place,
     * advertises the place's address and is asked for readiness on its control address.
     *
     * @param name a short name for directories and messages
     * @param parent where the server's directory goes
     * @param place where it runs, or null for this namespace's loopback
     */
    protected ServerProcess(String name, Path parent, NetworkPlace place) {
        this.place = place;
        this.side = place instanceof NetworkPartition.Side partitionSide ? partitionSide : null;
        try {
            Files.createDirectories(parent);
            this.home = Files.createTempDirectory(parent.toAbsolutePath(), name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.port = freePort();
    }

    /** Returns the port the server listens on. */
    public int port() {
        return port;
    }

    /** Returns the address clients connect to: 127.0.0.1, or the address of the place it runs in. */
    public String host() {
        return place == null ? "127.0.0.1" : place.address();
    }

    /** Returns the address the test itself reaches the server on, cut or not. */
    protected String controlHost() {
        return place == null ? "127.0.0.1" : place.controlAddress();
    }

    /** Returns the address the server listens on: 127.0.0.1, or every address of its place. */
    protected String bindAddress() {
        return place == null ? "127.0.0.1" : "0.0.0.0";
    }

    /** Returns where the server runs, or null for this namespace's loopback. */
    protected NetworkPlace place() {
        return place;
    }

    /**
     * Returns a command that runs where the server runs.
     *
     * @param command the command
     * @return the command, inside the place's namespace when the server runs in one
     */
    protected List<String> placed(List<String> command) {
        return place == null ? command : place.inside(command);
    }

    /** Creates the data directory's contents, for a first start or after {@link #restartEmpty()}. */
    protected abstract void initialize() throws IOException;

    /** Starts the server process on the existing data. */
    protected abstract Process launch() throws IOException;

    /** Reports whether the server answers. */
    protected abstract boolean ready();

    /** Returns the process ids that make up the server, its main process first. */
    protected List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        if (process != null) {
            pids.add(process.pid());
            process.descendants().forEach(child -> pids.add(child.pid()));
        }
        return pids;
    }

    /** Asks the server to shut down cleanly; the default sends SIGTERM. */
    protected void requestShutdown() {
        signal("TERM", pids().subList(0, Math.min(1, pids().size())));
    }

    /** Initializes and starts the server, waiting until it answers. */
    protected final void firstStart() {
        try {
            initialize();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        start();
    }

    /**
     * Says what {@link #ready()} found missing, for the message of a server that was not ready in time (its
     * directory is deleted when the test ends); empty by default.
     *
     * @return what is missing, or empty
     */
    protected String whyNotReady() {
        return "";
    }

    /** Starts the server on its data and waits until it answers. */
    public synchronized void start() {
        if (process != null) {
            throw new IllegalStateException(this + " is already running");
        }
        try {
            process = launch();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + this, e);
        }
        long deadline = CLOCK.monotonicNanos() + READY_TIMEOUT.toNanos();
        while (!ready()) {
            if (!process.isAlive()) {
                throw new IllegalStateException(this + " exited with " + process.exitValue() + kept(""));
            }
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException(this + " was not ready within " + READY_TIMEOUT + kept(whyNotReady()));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** Stops the server cleanly and waits for it to exit. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        if (paused) {
            resume();
        }
        List<Long> all = pids();
        requestShutdown();
        if (!awaitExit(all, Duration.ofSeconds(30))) {
            signal("KILL", pids());
            awaitExit(all, Duration.ofSeconds(10));
        }
        process = null;
    }

    /** Stops and starts the server, keeping its data. */
    public synchronized void restart() {
        stop();
        start();
    }

    /** Stops the server, deletes its data, initializes it again and starts it: a store that lost everything. */
    public synchronized void restartEmpty() {
        stop();
        deleteData();
        firstStart();
    }

    /** Kills the server with SIGKILL, as a crash would; {@link #start()} brings it back. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        List<Long> all = pids();
        signal("KILL", all);
        awaitExit(all, Duration.ofSeconds(10));
        process = null;
        paused = false;
    }

    /** Freezes every process of the server with SIGSTOP: connections stay open and nothing answers. */
    public synchronized void pause() {
        signal("STOP", pids());
        paused = true;
    }

    /** Thaws the server with SIGCONT. */
    public synchronized void resume() {
        signal("CONT", pids());
        paused = false;
    }

    /**
     * Freezes (SIGSTOP) or thaws (SIGCONT) several servers with one signal, so that they stop and go on at
     * the same instant rather than one process launch after another.
     *
     * @param servers the servers, each running
     * @param pause whether to freeze them (else thaw them)
     */
    protected static void pauseTogether(List<? extends ServerProcess> servers, boolean pause) {
        List<Long> all = new ArrayList<>();
        for (ServerProcess server : servers) {
            all.addAll(server.pids());
        }
        signal(pause ? "STOP" : "CONT", all);
        for (ServerProcess server : servers) {
            server.paused = pause;
        }
    }

    /** Deletes the data below the server's directory, keeping the directory. */
    protected void deleteData() {
        deleteTree(dataDir());
    }

    /** Returns the data directory. */
    protected Path dataDir() {
        return home.resolve("data");
    }

    @Override
    public synchronized void close() {
        stop();
        if (!keepHome) {
            deleteTree(home);
        }
    }

    /**
     * Keeps the server's directory past {@link #close()}, for a start that failed, and returns the end of the
     * failure's message: where the directory is, what was missing, and the last lines of its logs.
     *
     * @param why what {@link #ready()} found missing, or empty
     * @return {@code "; see DIR (kept); WHY"} and the logs' last lines
     */
    protected String kept(String why) {
        keepHome = true;
        return "; see " + home + " (kept)" + (why.isEmpty() ? "" : "; " + why) + logTails();
    }

    /**
     * Returns the last lines of each log file in the server's directory ({@code *.log}, {@code *.err}), for the
     * message of a server that did not start: the directory may be gone by the time someone reads it.
     */
    private String logTails() {
        StringBuilder tails = new StringBuilder();
        try (Stream<Path> files = Files.list(home)) {
            for (Path log : files.filter(f -> f.toString().endsWith(".log") || f.toString().endsWith(".err"))
                    .sorted().toList()) {
                List<String> lines = Files.readAllLines(log, java.nio.charset.StandardCharsets.UTF_8);
                tails.append(System.lineSeparator()).append("--- last lines of ").append(log).append(':');
                for (String line : lines.subList(Math.max(0, lines.size() - 15), lines.size())) {
                    tails.append(System.lineSeparator()).append(line);
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            tails.append(System.lineSeparator()).append("(cannot read the logs in ").append(home).append(": ")
                    .append(e.getMessage()).append(')');
        }
        return tails.toString();
    }

    /**
     * Sends a signal to processes.
     *
     * @param signal a signal name such as STOP
     * @param pids the processes
     */
    protected static void signal(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        pids.forEach(pid -> command.add(String.valueOf(pid)));
        run(command, Duration.ofSeconds(10), true);
    }

    private static boolean awaitExit(List<Long> pids, Duration bound) {
        long deadline = CLOCK.monotonicNanos() + bound.toNanos();
        while (pids.stream().anyMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))) {
            if (CLOCK.monotonicNanos() > deadline) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return true;
    }

    /**
     * Runs a command to completion.
     *
     * @param command the command
     * @param bound how long it may take
     * @param ignoreFailure whether a non-zero exit is acceptable
     * @return its output and error output
     */
    protected static String run(List<String> command, Duration bound, boolean ignoreFailure) {
        try {
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            child.getOutputStream().close();
            byte[] output = child.getInputStream().readAllBytes();
            if (!child.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + bound);
            }
            String text = new String(output, java.nio.charset.StandardCharsets.UTF_8);
            if (child.exitValue() != 0 && !ignoreFailure) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + child.exitValue()
                        + ": " + text);
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Reports whether a TCP connection to the port succeeds. */
    protected boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(controlHost(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Sends a one-line command to the server's port and returns what it answers before the bound.
     *
     * @param command the command bytes, such as {@code PING\r\n}
     * @param replyBytes how many bytes to read, or -1 to read until the server closes
     * @return the answer, or empty when the server does not answer
     */
    protected String ask(String command, int replyBytes) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(controlHost(), port), 500);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write(command.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            byte[] reply = replyBytes < 0 ? socket.getInputStream().readAllBytes()
                    : socket.getInputStream().readNBytes(replyBytes);
            return new String(reply, java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    /** The ports handed out below the kernel's ephemeral range, which starts at 32768 by default. */
    private static final int FIRST_PORT = 20_000;
    private static final int PORTS = 12_000;
    /** Where each handed-out port is locked for this JVM's life, so that parallel test JVMs never share one. */
    private static final Path PORT_LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "cosid-test-ports");
    private static final java.util.Set<Integer> HANDED_OUT = new java.util.HashSet<>();
    private static final List<java.nio.channels.FileLock> PORT_LOCKS_HELD = new ArrayList<>();
    private static final java.util.Random PORT_CHOICE = new java.util.Random();

    /**
     * Returns a free loopback port that no other test of this machine is handed while this JVM lives.
     *
     * <p>The port lies below the kernel's ephemeral range, so that no client connection takes it as its local
     * port between now and the server's start (a port from {@code bind(0)} lies inside that range), and it is
     * locked in a file under the temporary directory, so that test JVMs running side by side (Maven's
     * {@code -T}, surefire's forks) never start two servers on one port. The lock goes with the JVM.
     */
    public static synchronized int freePort() {
        try {
            Files.createDirectories(PORT_LOCKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int attempt = 0; attempt < 10_000; attempt++) {
            int port = FIRST_PORT + PORT_CHOICE.nextInt(PORTS);
            if (!HANDED_OUT.add(port)) {
                continue;
            }
            java.nio.channels.FileLock lock = lockPort(port);
            if (lock == null) {
                continue; // another test JVM holds it
            }
            if (bindable(port)) {
                PORT_LOCKS_HELD.add(lock);
                return port;
            }
            release(lock);
        }
        throw new IllegalStateException("no free loopback port from " + FIRST_PORT + " to " + (FIRST_PORT + PORTS - 1));
    }

    private static java.nio.channels.FileLock lockPort(int port) {
        try {
            java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(
                    PORT_LOCKS.resolve(Integer.toString(port)), java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
            }
            return lock;
        } catch (IOException | java.nio.channels.OverlappingFileLockException e) {
            return null;
        }
    }

    private static void release(java.nio.channels.FileLock lock) {
        try {
            lock.channel().close();
        } catch (IOException ignored) {
            // the lock goes with the channel, or with the JVM
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Reports whether this JVM runs as root. */
    protected static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + host() + ":" + port + ", " + home + "]";
    }
}
