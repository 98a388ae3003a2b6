package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.NetworkPartition;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The clients of one partition run: {@link PartitionClient} processes started inside the sides of a
 * {@link NetworkPartition}, the cuts and heals with their wall times, and at the end every id of every client
 * read back and compared.
 */
final class PartitionRun {

    /** Ids a second per client, as in the runs. */
    static final long RATE = 2_000;
    private static final Clock WALL = Clock.system();

    private final NetworkPartition net;
    private final Path dir;
    private final Map<String, Client> clients = new LinkedHashMap<>();
    private final List<Long> cuts = new ArrayList<>();
    private final List<Long> heals = new ArrayList<>();

    /** One client process and its files. */
    record Client(String name, Process process, Path ids, Path log) {
        long bytes() {
            return ids.toFile().length();
        }
    }

    PartitionRun(NetworkPartition net, Path dir) {
        this.net = net;
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a client inside a side on a store URL. */
    Client start(String name, NetworkPartition.Side side, String url) {
        Path ids = dir.resolve(name + ".ids");
        Path log = dir.resolve(name + ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = net.start(side, List.of(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                PartitionClient.class.getName(), url, name, Long.toString(RATE), ids.toString()), log);
        Client client = new Client(name, process, ids, log);
        clients.put(name, client);
        return client;
    }

    /** Waits until a client has written ids beyond what it had, or fails naming its log. */
    void awaitIssuing(Client client, Duration bound) {
        long before = client.bytes();
        Await.until(() -> client.bytes() > before + 16 * 100 || !client.process().isAlive(), bound,
                client.name() + " issuing ids; see " + client.log());
        if (!client.process().isAlive()) {
            throw new IllegalStateException(client.name() + " exited; see " + client.log());
        }
    }

    /** Waits until a client has asked the store for the slot and found it held by the other. */
    void awaitWaiting(Client client, Duration bound) {
        Await.until(() -> logOf(client).contains("no runtime yet") || !client.process().isAlive(), bound,
                client.name() + " finding the slot held; see " + client.log());
        if (!client.process().isAlive()) {
            throw new IllegalStateException(client.name() + " exited; see " + client.log());
        }
    }

    private static String logOf(Client client) {
        try {
            return Files.readString(client.log());
        } catch (IOException e) {
            return "";
        }
    }

    /** Waits for a while of wall time, the clients issuing meanwhile. */
    void elapse(Duration extent) {
        Await.elapse(extent);
    }

    /** Cuts the sides apart and notes when. */
    void cut() {
        cuts.add(WALL.nowMillis());
        net.cut();
    }

    /** Heals the partition and notes when. */
    void heal() {
        net.heal();
        heals.add(WALL.nowMillis());
    }

    /** Returns the wall time of the first cut. */
    long firstCut() {
        return cuts.get(0);
    }

    /** Stops every client (closing its standard input), kills one that does not exit, and reads their ids. */
    Result stop() {
        for (Client client : clients.values()) {
            try {
                client.process().getOutputStream().close();
            } catch (IOException e) {
                // it is gone already
            }
        }
        for (Client client : clients.values()) {
            try {
                if (!client.process().waitFor(10, TimeUnit.SECONDS)) {
                    client.process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        Map<String, Issued> issued = new LinkedHashMap<>();
        clients.values().forEach(client -> issued.put(client.name(), Issued.read(client)));
        return new Result(issued, List.copyOf(cuts), List.copyOf(heals));
    }

    /** What one client issued: the wall time of each id, and the id. */
    record Issued(String name, long[] times, long[] ids, Path log) {
        static Issued read(Client client) {
            try {
                byte[] bytes = Files.readAllBytes(client.ids());
                int count = bytes.length / 16;
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                long[] times = new long[count];
                long[] ids = new long[count];
                for (int i = 0; i < count; i++) {
                    times[i] = buffer.getLong();
                    ids[i] = buffer.getLong();
                }
                return new Issued(client.name(), times, ids, client.log());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        int count() {
            return ids.length;
        }

        /** The wall time of the last id, or 0 when none. */
        long last() {
            return times.length == 0 ? 0 : times[times.length - 1];
        }

        /** How many ids were issued after the wall time. */
        long after(long wall) {
            return Arrays.stream(times).filter(time -> time > wall).count();
        }

        /** The wall time of the first id after the wall time, or 0 when none. */
        long firstAfter(long wall) {
            return Arrays.stream(times).filter(time -> time > wall).findFirst().orElse(0);
        }

        /** The longest time without an id between the first and the last, in ms. */
        long longestGap() {
            long longest = 0;
            for (int i = 1; i < times.length; i++) {
                longest = Math.max(longest, times[i] - times[i - 1]);
            }
            return longest;
        }
    }

    /** Every client's ids, with the cuts and heals. */
    record Result(Map<String, Issued> issued, List<Long> cuts, List<Long> heals) {

        Issued of(String client) {
            return issued.get(client);
        }

        /** How many ids were issued more than once, by any clients. */
        long repeats() {
            long[] all = issued.values().stream().flatMapToLong(one -> Arrays.stream(one.ids())).sorted().toArray();
            long repeats = 0;
            for (int i = 1; i < all.length; i++) {
                if (all[i] == all[i - 1]) {
                    repeats++;
                }
            }
            return repeats;
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder("repeated ids " + repeats() + ", cuts " + cuts.size() + ", heals "
                    + heals.size());
            long cut = cuts.isEmpty() ? 0 : cuts.get(0);
            for (Issued one : issued.values()) {
                text.append("; ").append(one.name()).append(": ").append(one.count()).append(" ids, ")
                        .append(one.after(cut)).append(" after the first cut");
                if (one.count() > 0) {
                    text.append(", last at cut").append(signed(one.last() - cut)).append(" ms, longest gap ")
                            .append(one.longestGap()).append(" ms");
                }
                text.append(" (").append(one.log()).append(')');
            }
            return text.toString();
        }

        private static String signed(long millis) {
            return millis < 0 ? "-" + -millis : "+" + millis;
        }
    }
}
