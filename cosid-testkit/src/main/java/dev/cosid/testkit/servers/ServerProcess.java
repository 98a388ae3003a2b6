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
    /** The running server's main process, or null while stopped. */
    protected Process process;
    private boolean paused;

    /**
     * Prepares a server in a fresh directory.
     *
     * @param name a short name for directories and messages
     * @param parent where the server's directory goes
     */
    protected ServerProcess(String name, Path parent) {
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
                throw new IllegalStateException(this + " exited with " + process.exitValue() + "; see " + home);
            }
            if (CLOCK.monotonicNanos() > deadline) {
                throw new IllegalStateException(this + " was not ready within " + READY_TIMEOUT + "; see " + home);
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
        deleteTree(home);
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
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
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
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write(command.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            byte[] reply = replyBytes < 0 ? socket.getInputStream().readAllBytes()
                    : socket.getInputStream().readNBytes(replyBytes);
            return new String(reply, java.nio.charset.StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    /** Returns a free loopback port. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
        return getClass().getSimpleName() + "[127.0.0.1:" + port + ", " + home + "]";
    }
}
