package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import dev.cosid.testkit.Await;
import dev.cosid.testkit.ChildJvm;
import dev.cosid.testkit.servers.ControlledServer;
import dev.cosid.time.Clock;
import java.io.IOException;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * One chaos run with real processes: worker JVMs issue ids from a real store while a nemesis pauses
 * them past their lease (SIGSTOP/SIGCONT), kills and restarts them, restarts and pauses the store,
 * and runs them on skewed clocks. A replicated store also fails over: its primary is SIGKILLed and its
 * replica promoted, then the killed server rejoins as the new replica. At the end every id of every
 * worker is merged and checked, and the longest gap without ids is measured per worker and across each
 * failover.
 */
final class ChaosRun {

    private static final long[] CLOCK_OFFSETS = {0, 1_500, -1_500, 700};
    /**
     * How long a worker pauses after each batch of 16 ids: {@code cosid.chaos.pace-micros}, 1000 by default
     * (about 16,000 ids a second per worker, so four workers leave the machine's cores to the faults and to the
     * other tests); 100 for the long runs' few hundred thousand a second. Two holders of one window would
     * still repeat ids: each issues its batch with the sequences 0 to 15 of the same millisecond.
     */
    static final Duration PACE = Duration.ofNanos(1_000 * Long.parseLong(
            System.getProperty("cosid.chaos.pace-micros", "").isBlank() ? "1000"
                    : System.getProperty("cosid.chaos.pace-micros").trim()));
    private static final Clock CLOCK = Clock.system();

    /** A replicated store's failover: kill the primary and promote the replica; then bring the old primary back. */
    interface Replication {
        /** Kills the primary, waits for the promotion and returns how long it took. */
        Duration failover();

        /** Brings the killed server back as the new primary's replica. */
        void rejoin();
    }

    /**
     * A fault of the store the nemesis inflicts: a whole server restarted or paused, or one member of a
     * cluster killed or paused.
     */
    @FunctionalInterface
    interface StoreFault {
        /**
         * Inflicts the fault and waits until the store is whole again, drawing its timing from the run's random.
         *
         * @param random the run's random source
         * @return the fault's name for the summary
         * @throws Exception when the store cannot be made whole again
         */
        String inflict(Random random) throws Exception;

        /** A fault whose name does not depend on what it struck. */
        static StoreFault of(String name, java.util.function.Consumer<Random> action) {
            return random -> {
                action.accept(random);
                return name;
            };
        }
    }

    private final List<StoreFault> storeFaults;
    private final String storeUrl;
    private final Path dir;
    private final Random random;
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<Path> outputs = new ArrayList<>();
    /** The worker index of each output, for its clock offset. */
    private final List<Integer> outputWorkers = new ArrayList<>();
    /** Each failover: the wall time of the kill (ms) and how long the promotion took (ms). */
    private final List<long[]> failovers = new ArrayList<>();
    private final Process[] workers;
    /** Each worker's current output. */
    private final Path[] current;
    private Replication replication;
    private boolean takeoverGuard;
    private boolean expectUnique = true;
    private int incarnations;
    /** The longest gap without ids of any worker, set by {@link #gaps()}. */
    private long longestGapMillis;
    /** Per worker, the wall times (ms) that bound its longest gap, set by {@link #gaps()}. */
    private long[][] longestGapSpan;

    ChaosRun(ControlledServer server, String storeUrl, Path dir, long seed, int workers) {
        this(List.of(StoreFault.of("store restarted", random -> server.restart()),
                StoreFault.of("store paused", random -> {
                    server.pause();
                    Await.elapse(Duration.ofMillis(1_000 + random.nextInt(2_000)));
                    server.resume();
                })), storeUrl, dir, seed, workers);
    }

    /**
     * A run whose nemesis inflicts the given store faults: the first in one fifth of the rounds, the
     * second (or the first again) in another fifth.
     */
    ChaosRun(List<StoreFault> storeFaults, String storeUrl, Path dir, long seed, int workers) {
        this.storeFaults = List.copyOf(storeFaults);
        this.storeUrl = storeUrl;
        this.dir = dir;
        this.random = new Random(seed);
        this.workers = new Process[workers];
        this.current = new Path[workers];
    }

    /** Adds failovers to the store faults: a third of the rounds, and every store restart or pause. */
    ChaosRun failovers(Replication failover) {
        this.replication = failover;
        return this;
    }

    /** Runs the workers with the takeover guard on or off. */
    ChaosRun takeoverGuard(boolean enabled) {
        this.takeoverGuard = enabled;
        return this;
    }

    /**
     * Whether the run fails on a duplicate id; without the takeover guard an asynchronous failover may repeat
     * ids, which such a run reports instead.
     */
    ChaosRun expectUnique(boolean expected) {
        this.expectUnique = expected;
        return this;
    }

    private Process start(int index) throws IOException {
        Path out = dir.resolve("worker-" + index + "-" + incarnations++ + ".ids");
        outputs.add(out);
        outputWorkers.add(index);
        current[index] = out;
        return new ProcessBuilder(ChildJvm.command(List.of("-Xmx256m"), ChaosWorker.class.getName(), List.of(storeUrl,
                "worker-" + index, Long.toString(CLOCK_OFFSETS[index % CLOCK_OFFSETS.length]), out.toString(),
                Long.toString(PACE.toNanos() / 1_000), takeoverGuard ? "--takeover-guard" : "")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker-" + index + ".log").toFile()))
                .start();
    }

    private void fault(String kind) {
        faults.merge(kind, 1, Integer::sum);
    }

    private static void signal(String signal, Process process) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs the nemesis for a while and returns the merged result. */
    String run(Duration duration) throws Exception {
        try {
            for (int i = 0; i < workers.length; i++) {
                workers[i] = start(i);
            }
            fault("workers on skewed clocks (+-1.5 s, tolerance 0.5 s)");
            // a loaded machine may take many seconds to start four JVMs: the nemesis waits for every worker's ids
            Await.until(this::everyWorkerIssued, Duration.ofMinutes(2), "every chaos worker issuing ids");
            Await.elapse(Duration.ofSeconds(2));
            nemesis(duration);
            for (int i = 0; i < workers.length; i++) {
                if (current[i].toFile().length() == 0) {
                    signal("QUIT", workers[i]); // a worker with nothing written prints its threads into its log
                    Await.elapse(Duration.ofMillis(500));
                }
            }
        } finally {
            for (Process worker : workers) {
                if (worker != null) {
                    worker.destroyForcibly().waitFor();
                }
            }
        }
        return merge(duration);
    }

    private void nemesis(Duration duration) throws Exception {
        // the first rounds strike once with every kind, in an order the seed picks, so that a short run still
        // inflicts each fault; the later rounds draw their kind at random
        List<Integer> firstKinds = new ArrayList<>(List.of(0, 1, 2, 3));
        java.util.Collections.shuffle(firstKinds, random);
        long rounds = Math.max(firstKinds.size(), duration.toMillis() / 1_500);
        // a failover and its rejoin take several rounds' time: a replicated run ends on time, not on the count
        long deadline = CLOCK.monotonicNanos() + duration.toNanos();
        for (int round = 0; round < firstKinds.size()
                || round < rounds && (replication == null || CLOCK.monotonicNanos() < deadline); round++) {
            int index = random.nextInt(workers.length);
            boolean first = round < firstKinds.size();
            int kind = first ? firstKinds.get(round) : random.nextInt(5);
            if (replication != null && (kind == 2 || kind == 3 || !first && round % 3 == 1)) {
                fault("primary SIGKILLed, replica promoted, old primary rejoined as replica");
                long killedAt = CLOCK.nowMillis();
                Duration took = replication.failover();
                failovers.add(new long[] {killedAt, took.toMillis()});
                replication.rejoin();
                continue;
            }
            switch (kind) {
                case 0:
                    fault("worker paused past its lease (SIGSTOP/SIGCONT)");
                    signal("STOP", workers[index]);
                    Await.elapse(Duration.ofMillis(2_600 + random.nextInt(1_000)));
                    signal("CONT", workers[index]);
                    break;
                case 1:
                    fault("worker killed (SIGKILL) and restarted");
                    workers[index].destroyForcibly().waitFor();
                    workers[index] = start(index);
                    break;
                case 2:
                case 3:
                    fault(storeFaults.get((kind - 2) % storeFaults.size()).inflict(random));
                    break;
                default:
                    Await.elapse(Duration.ofMillis(1_500));
                    break;
            }
        }
        Await.elapse(Duration.ofSeconds(2));
    }

    private String merge(Duration duration) throws IOException {
        long[] ids = merged();
        Arrays.sort(ids);
        long duplicates = 0;
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1]) {
                duplicates++;
            }
        }
        String summary = "chaos on " + storeUrl + (replication == null ? "" : takeoverGuard ? " (takeover guard on)"
                : " (takeover guard off)") + ": " + ids.length + " ids from " + incarnations
                + " worker incarnations in " + duration.toSeconds() + " s; faults " + faults + "; duplicates "
                + duplicates + gaps();
        System.out.println(summary);
        assertTrue(ids.length > 10_000, summary + workerLog());
        if (replication != null) {
            System.out.println(workerLog());
        }
        if (longestGapMillis > 10_000) {
            System.out.println(gapLog());
        }
        if (expectUnique) {
            assertEquals(0, duplicates, summary);
        }
        return summary;
    }

    private boolean everyWorkerIssued() {
        return Arrays.stream(current).allMatch(out -> out.toFile().length() > 0);
    }

    /** The end of each worker's output, for a run that issued too few ids. */
    private String workerLog() throws IOException {
        StringBuilder logs = new StringBuilder();
        for (int i = 0; i < workers.length; i++) {
            Path log = dir.resolve("worker-" + i + ".log");
            if (Files.exists(log)) {
                String text = Files.readString(log);
                logs.append("; worker-").append(i).append(" wrote: ").append(text.substring(Math.max(0, text.length() - 4_000)));
            }
        }
        return logs.toString();
    }

    /**
     * What each worker with a gap over 10 s said during it (the lease events its narrator printed with
     * the wall time), to tell where the gap went.
     */
    private String gapLog() throws IOException {
        StringBuilder said = new StringBuilder();
        for (int i = 0; i < workers.length; i++) {
            long[] span = longestGapSpan[i];
            Path log = dir.resolve("worker-" + i + ".log");
            if (span[1] - span[0] <= 10_000 || !Files.exists(log)) {
                continue;
            }
            said.append("worker-").append(i).append(", gap ").append(span[0]).append("..").append(span[1])
                    .append(" ms:\n");
            try (java.util.stream.Stream<String> lines = Files.lines(log)) {
                lines.filter(line -> {
                    int space = line.indexOf(' ');
                    String first = space < 0 ? line : line.substring(0, space);
                    if (!first.matches("\\d{13}")) {
                        return false;
                    }
                    long at = Long.parseLong(first);
                    return at >= span[0] - 3_000 && at <= span[1] + 1_000;
                }).limit(200).forEach(line -> said.append("  ").append(line).append('\n'));
            }
        }
        return said.toString();
    }

    /**
     * The availability cost: per worker the longest time between two consecutive ids of one incarnation
     * (whatever the cause: a pause, a store fault, a failover), and per failover the longest time any worker
     * running across it went without an id. Times are the ids' own, less the worker's clock offset.
     */
    private String gaps() throws IOException {
        long[] longestPerWorker = new long[workers.length];
        longestGapSpan = new long[workers.length][2];
        long[] longestPerFailover = new long[failovers.size()];
        for (int o = 0; o < outputs.size(); o++) {
            if (!Files.exists(outputs.get(o))) {
                continue;
            }
            int worker = outputWorkers.get(o);
            long offset = CLOCK_OFFSETS[worker % CLOCK_OFFSETS.length];
            try (java.io.DataInputStream in = new java.io.DataInputStream(new java.io.BufferedInputStream(
                    Files.newInputStream(outputs.get(o)), 1 << 16))) {
                long previous = -1;
                for (long remaining = Files.size(outputs.get(o)) / Long.BYTES; remaining > 0; remaining--) {
                    long at = IdLayout.MILLISECOND.parse(in.readLong()).timestampMillis() - offset;
                    if (previous >= 0 && at > previous) {
                        if (at - previous > longestPerWorker[worker]) {
                            longestPerWorker[worker] = at - previous;
                            longestGapSpan[worker] = new long[] {previous, at};
                        }
                        for (int f = 0; f < failovers.size(); f++) {
                            long killedAt = failovers.get(f)[0];
                            if (previous <= killedAt && at > killedAt) {
                                longestPerFailover[f] = Math.max(longestPerFailover[f], at - previous);
                            }
                        }
                    }
                    previous = Math.max(previous, at);
                }
            }
        }
        longestGapMillis = Arrays.stream(longestPerWorker).max().orElse(0);
        StringBuilder text = new StringBuilder("; longest gap without ids per worker (ms) ")
                .append(Arrays.toString(longestPerWorker));
        if (!failovers.isEmpty()) {
            text.append("; failovers: promotion (ms) / longest gap across it (ms)");
            for (int f = 0; f < failovers.size(); f++) {
                text.append(f == 0 ? " " : ", ").append(failovers.get(f)[1]).append(" / ").append(longestPerFailover[f]);
            }
        }
        return text.toString();
    }

    /** Reads every worker's ids into one array; a kill may cut the last id short, which is dropped. */
    private long[] merged() throws IOException {
        long total = 0;
        for (Path output : outputs) {
            if (Files.exists(output)) {
                total += Files.size(output) / Long.BYTES;
            }
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(total + " ids are too many to check in one array; run shorter");
        }
        long[] all = new long[(int) total];
        int at = 0;
        for (Path output : outputs) {
            if (!Files.exists(output)) {
                continue;
            }
            try (FileChannel channel = FileChannel.open(output, StandardOpenOption.READ)) {
                long whole = channel.size() / Long.BYTES * Long.BYTES;
                for (long position = 0; position < whole; ) {
                    long length = Math.min(whole - position, 1L << 30);
                    MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, position, length);
                    LongBuffer longs = bytes.asLongBuffer();
                    int count = longs.remaining();
                    longs.get(all, at, count);
                    at += count;
                    position += length;
                }
            }
        }
        return all;
    }
}
