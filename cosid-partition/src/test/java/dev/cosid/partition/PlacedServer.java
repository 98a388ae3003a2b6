package dev.cosid.partition;

import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.testkit.servers.ServerProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A server run inside one side of a {@link NetworkPartition}: started through the partition (which kills it
 * when it closes), listening on every address of its side; closing it kills it at once, since a cut-off server
 * may wait on its peers while shutting down.
 */
abstract class PlacedServer extends ServerProcess {

    /** The partition the server runs in. */
    protected final NetworkPartition net;

    PlacedServer(String name, NetworkPartition net, NetworkPartition.Side side) {
        super(name + "-" + side.name(), Path.of("target", "servers"), side);
        this.net = net;
    }

    PlacedServer(String name, Path parent, NetworkPartition net, NetworkPartition.Side side) {
        super(name + "-" + side.name(), parent, side);
        this.net = net;
    }

    /** Returns {@code host:port} as clients on either side reach the server. */
    String address() {
        return host() + ":" + port;
    }

    /** Starts the command inside the server's side, its output appended to {@code NAME.log} in its directory. */
    protected Process launch(List<String> command, String log) {
        return net.start(side, command, home.resolve(log));
    }

    /** Starts the server for the first time. */
    void begin() {
        firstStart();
    }

    /** Runs a command inside the server's side to completion. */
    protected String runInside(List<String> command, Duration bound) {
        return run(placed(command), bound, false);
    }

    /**
     * Sends one Redis inline command to the server's control address and returns its bulk-string answer, or empty
     * when it does not answer: reads exactly one reply, as a sentinel keeps the connection open.
     */
    String redis(String command) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(controlHost(), port), 500);
            socket.setSoTimeout(1000);
            socket.getOutputStream().write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            var in = new java.io.DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\r'; c = in.read()) {
                if (c < 0) {
                    return "";
                }
                line.append((char) c);
            }
            in.read();
            if (line.charAt(0) != '$') {
                return line.substring(1);
            }
            int length = Integer.parseInt(line.substring(1));
            if (length < 0) {
                return "";
            }
            byte[] bytes = new byte[length];
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Kills the server and deletes its directory. */
    @Override
    public synchronized void close() {
        kill();
        super.close();
    }

    /** Creates the data directory. */
    @Override
    protected void initialize() throws IOException {
        Files.createDirectories(dataDir());
    }
}
