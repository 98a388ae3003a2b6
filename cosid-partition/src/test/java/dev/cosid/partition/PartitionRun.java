package dev.cosid.partition;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
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
    /** Whether this is the long run: {@code -Dcosid.partition.long=true}. */
    static final boolean LONG = Boolean.parseBoolean(System.getProperty("cosid.partition.long", "false").trim());
    /** Rounds per setup, each on fresh namespaces and servers: 1, or {@code cosid.partition.rounds} (3) in the long run. */
    static final int ROUNDS = LONG ? Integer.parseInt(System.getProperty("cosid.partition.rounds", "3").trim()) : 1;
    /** How long both sides issue once B issues, the sides still cut. */
    static final Duration HOLD = LONG ? Duration.ofSeconds(20) : Duration.ofSeconds(1);
    /** How long both sides issue after the heal, in the long run only (the short run does not heal). */
    static final Duration HEALED = LONG ? Duration.ofSeconds(15) : Duration.ZERO;
    private static final Clock WALL = Clock.system();

    private final NetworkPartition net;
    private final Path dir;
    private final Map<String, Client> clients = new LinkedHashMap<>();
    private final List<Long> cuts = new ArrayList<>();
    /** When each cut had taken effect on both ends: no packet passes after it. */
    private final List<Long> cutsDone = new ArrayList<>();
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
            for (String left : List.of("a.log", "a.ids", "b.log", "b.ids")) {
                Files.deleteIfExists(dir.resolve(left)); // an earlier run's: the logs are appended to
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a client inside a side on a store URL. */
    Client start(String name, NetworkPartition.Side side, String url) {
        Path ids = dir.resolve(name + ".ids");
        Path log = dir.resolve(name + ".log");
        Process process = net.start(side, ChildJvm.command(List.of("-Xmx128m"), PartitionClient.class.getName(),
                List.of(url, name, Long.toString(RATE), ids.toString())), log);
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
        cutsDone.add(WALL.nowMillis());
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

    /**
     * Ends a round once B issues: both sides keep issuing for {@link #HOLD}; in the long run the sides then heal
     * and keep issuing for {@link #HEALED}. Returns every id.
     */
    Result finish() {
        elapse(HOLD);
        if (!HEALED.isZero()) {
            heal();
            elapse(HEALED);
        }
        return stop();
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
        return new Result(issued, List.copyOf(cuts), List.copyOf(cutsDone), List.copyOf(heals));
    }

    /**
     * Runs the rounds of one setup and configuration ({@link #ROUNDS}: 1, more in the long run), each on fresh
     * namespaces and servers; the round checks its own result. Prints the figures of all rounds and appends them
     * to {@code target/partition-runs/figures.txt}.
     *
     * @param name the setup and configuration
     * @param round runs one round: its partitions, failovers and ids
     * @return every round's result
     */
    static List<Result> rounds(String name, java.util.function.IntFunction<Result> round) {
        List<Result> results = new ArrayList<>();
        for (int i = 1; i <= ROUNDS; i++) {
            results.add(round.apply(i));
        }
        long ids = 0;
        long repeats = 0;
        long partitions = 0;
        Map<String, Long> perClient = new LinkedHashMap<>();
        Map<String, Long> gaps = new LinkedHashMap<>();
        long aWentOn = 0;
        long bWaited = 0;
        for (Result result : results) {
            aWentOn = Math.max(aWentOn, result.of("a").lastBefore(result.healed()) - result.cut());
            bWaited = Math.max(bWaited, result.of("b").firstAfter(result.cut()) - result.cut());
            repeats += result.repeats();
            partitions += result.cuts().size();
            for (Issued one : result.issued().values()) {
                ids += one.count();
                perClient.merge(one.name(), (long) one.count(), Long::sum);
                gaps.merge(one.name(), one.longestGap(), Math::max);
            }
        }
        String figures = name + ": " + results.size() + " rounds, " + partitions + " partitions, " + results.size()
                + " failovers, ids " + ids + " " + perClient + ", repeated " + repeats + ", longest gap (ms) " + gaps
                + ", a's last id before the heal at most " + aWentOn + " ms after the cut, b's first id after the cut "
                + "at most " + bWaited + " ms after it";
        record(figures);
        return results;
    }

    /** Prints a run's figures and appends them to {@code target/partition-runs/figures.txt}. */
    static void record(String figures) {
        System.out.println(figures);
        try {
            Path file = Path.of("target", "partition-runs", "figures.txt");
            Files.createDirectories(file.getParent());
            Files.writeString(file, figures + System.lineSeparator(), java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Counts the ids issued more than once across the batches (an id three times counts twice).
     *
     * @param batches the ids each client issued
     * @return how many ids repeat an earlier one
     */
    static long repeats(long[]... batches) {
        long[] all = Arrays.stream(batches).flatMapToLong(Arrays::stream).sorted().toArray();
        long repeats = 0;
        for (int i = 1; i < all.length; i++) {
            if (all[i] == all[i - 1]) {
                repeats++;
            }
        }
        return repeats;
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

        /** The wall time of the last id at or before the wall time, or 0 when none. */
        long lastBefore(long wall) {
            return Arrays.stream(times).filter(time -> time <= wall).max().orElse(0);
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
    record Result(Map<String, Issued> issued, List<Long> cuts, List<Long> cutsDone, List<Long> heals) {

        Issued of(String client) {
            return issued.get(client);
        }

        /** The wall time of the first cut. */
        long cut() {
            return cuts.get(0);
        }

        /** The wall time of the first heal, or now when the sides were never healed. */
        long healed() {
            return heals.isEmpty() ? Long.MAX_VALUE : heals.get(0);
        }

        /**
         * How many ids the cut-off client issued, before the heal, whose own timestamp lies past the last ceiling
         * it could have had confirmed: a renewal confirmed just before the cut took effect ends its window a
         * lease and the tolerance later (the store's clock is this machine's).
         */
        long pastCeiling(String client) {
            long ceiling = cutsDone.get(0) + PartitionClient.TTL.plus(PartitionClient.TOLERANCE).toMillis();
            Issued one = of(client);
            long past = 0;
            for (int i = 0; i < one.count(); i++) {
                if (one.times()[i] <= healed() && dev.cosid.IdLayout.MILLISECOND.parse(one.ids()[i]).timestampMillis()
                        > ceiling) {
                    past++;
                }
            }
            return past;
        }

        /** How many ids were issued more than once, by any clients. */
        long repeats() {
            return PartitionRun.repeats(issued.values().stream().map(Issued::ids).toArray(long[][]::new));
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
                    text.append(", last at cut").append(signed(one.last() - cut)).append(" ms");
                    if (one.after(cut) > 0) {
                        text.append(", first after the cut at cut").append(signed(one.firstAfter(cut) - cut))
                                .append(" ms");
                    }
                    text.append(", longest gap ").append(one.longestGap()).append(" ms");
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
