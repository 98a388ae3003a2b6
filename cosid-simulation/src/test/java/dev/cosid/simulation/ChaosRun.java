package dev.cosid.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.Await;
import dev.cosid.testkit.servers.ServerProcess;
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
 * and runs them on skewed clocks. At the end every id of every worker is merged and checked.
 */
final class ChaosRun {

    /**
     * What the nemesis does to the store: by default the whole server restarts and pauses; a cluster
     * can strike one member instead.
     */
    interface StoreFaults {
        /**
         * Restarts (a part of) the store.
         *
         * @param random the run's random source
         * @return the fault's name for the summary
         */
        String restart(Random random) throws Exception;

        /**
         * Pauses (a part of) the store for a while and resumes it.
         *
         * @param random the run's random source
         * @param pause how long to pause
         * @return the fault's name for the summary
         */
        String pause(Random random, Duration pause) throws Exception;
    }

    private static final long[] CLOCK_OFFSETS = {0, 1_500, -1_500, 700};

    private final ServerProcess server;
    private final String storeUrl;
    private final Path dir;
    private final Random random;
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<Path> outputs = new ArrayList<>();
    private final Map<Path, Integer> workerOf = new java.util.HashMap<>();
    private final List<Path> logs = new ArrayList<>();
    private final Process[] workers;
    private final Path[] current;
    private final StoreFaults storeFaults;
    private final Map<Integer, Long> longestGapMillis = new TreeMap<>();
    private int incarnations;

    ChaosRun(ServerProcess server, String storeUrl, Path dir, long seed, int workers) {
        this(server, storeUrl, dir, seed, workers, null);
    }

    ChaosRun(ServerProcess server, String storeUrl, Path dir, long seed, int workers, StoreFaults storeFaults) {
        this.storeFaults = storeFaults != null ? storeFaults : new StoreFaults() {
            @Override
            public String restart(Random random) {
                server.restart();
                return "store restarted";
            }

            @Override
            public String pause(Random random, Duration pause) {
                server.pause();
                Await.elapse(pause);
                server.resume();
                return "store paused";
            }
        };
        this.server = server;
        this.storeUrl = storeUrl;
        this.dir = dir;
        this.random = new Random(seed);
        this.workers = new Process[workers];
        this.current = new Path[workers];
    }

    private Process start(int index) throws IOException {
        Path out = dir.resolve("worker-" + index + "-" + incarnations++ + ".ids");
        workerOf.put(out, index);
        outputs.add(out);
        current[index] = out;
        Path log = dir.resolve(out.getFileName() + ".log");
        logs.add(log);
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                ChaosWorker.class.getName(), storeUrl, "worker-" + index,
                Long.toString(CLOCK_OFFSETS[index % CLOCK_OFFSETS.length]), out.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
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
        for (int i = 0; i < workers.length; i++) {
            workers[i] = start(i);
        }
        fault("workers on skewed clocks (+-1.5 s, tolerance 0.5 s)");
        // the nemesis starts once every worker issues: a loaded machine may take many seconds to start four JVMs
        Await.until(this::everyWorkerIssued, Duration.ofMinutes(2), "every chaos worker issuing ids");
        long rounds = Math.max(1, duration.toMillis() / 1_500);
        for (long round = 0; round < rounds; round++) {
            int index = random.nextInt(workers.length);
            switch (random.nextInt(5)) {
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
                    fault(storeFaults.restart(random));
                    break;
                case 3:
                    fault(storeFaults.pause(random, Duration.ofMillis(1_000 + random.nextInt(2_000))));
                    break;
                default:
                    Await.elapse(Duration.ofMillis(1_500));
                    break;
            }
        }
        Await.elapse(Duration.ofSeconds(2));
        for (int i = 0; i < workers.length; i++) {
            Path out = current[i];
            if (!Files.exists(out) || Files.size(out) == 0) {
                signal("QUIT", workers[i]); // a worker with nothing written prints its threads into its log
                Await.elapse(Duration.ofMillis(500));
            }
        }
        for (Process worker : workers) {
            worker.destroyForcibly().waitFor();
        }
        long[] ids = merged();
        Arrays.sort(ids);
        long duplicates = 0;
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1]) {
                duplicates++;
            }
        }
        String summary = "chaos on " + storeUrl + ": " + ids.length + " ids from " + incarnations
                + " worker incarnations in " + duration.toSeconds() + " s; faults " + faults + "; duplicates "
                + duplicates + "; longest gap between two ids of one worker incarnation, per worker, ms "
                + longestGapMillis;
        System.out.println(summary);
        assertTrue(ids.length > 10_000, () -> summary + "; the workers said:\n" + workerLogs());
        assertEquals(0, duplicates, summary);
        return summary;
    }

    private boolean everyWorkerIssued() {
        for (Path out : current) {
            try {
                if (!Files.exists(out) || Files.size(out) == 0) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** The last lines each worker printed, for a run that issued too few ids. */
    private String workerLogs() {
        StringBuilder said = new StringBuilder();
        for (Path log : logs) {
            try {
                List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
                said.append(log.getFileName()).append(": ")
                        .append(String.join("\n  ", lines.subList(Math.max(0, lines.size() - 200), lines.size())))
                        .append('\n');
            } catch (IOException e) {
                said.append(log.getFileName()).append(": ").append(e).append('\n');
            }
        }
        return said.toString();
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
                    noteGaps(output, all, at, count);
                    at += count;
                    position += length;
                }
            }
        }
        return all;
    }

    /** Records the longest time between two successive ids of one worker incarnation (ids of one worker rise). */
    private void noteGaps(Path output, long[] ids, int from, int count) {
        long longest = 0;
        for (int i = from + 1; i < from + count; i++) {
            longest = Math.max(longest, timestamp(ids[i]) - timestamp(ids[i - 1]));
        }
        longestGapMillis.merge(workerOf.get(output), longest, Math::max);
    }

    private static long timestamp(long id) {
        return dev.cosid.IdLayout.MILLISECOND.parse(id).timestampMillis();
    }
}
