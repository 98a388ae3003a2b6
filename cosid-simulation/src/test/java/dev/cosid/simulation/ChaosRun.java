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

    private static final long[] CLOCK_OFFSETS = {0, 1_500, -1_500, 700};

    private final ServerProcess server;
    private final String storeUrl;
    private final Path dir;
    private final Random random;
    private final Map<String, Integer> faults = new TreeMap<>();
    private final List<Path> outputs = new ArrayList<>();
    private final Process[] workers;
    private int incarnations;

    ChaosRun(ServerProcess server, String storeUrl, Path dir, long seed, int workers) {
        this.server = server;
        this.storeUrl = storeUrl;
        this.dir = dir;
        this.random = new Random(seed);
        this.workers = new Process[workers];
    }

    private Process start(int index) throws IOException {
        Path out = dir.resolve("worker-" + index + "-" + incarnations++ + ".ids");
        outputs.add(out);
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ChaosWorker.class.getName(), storeUrl, "worker-" + index,
                Long.toString(CLOCK_OFFSETS[index % CLOCK_OFFSETS.length]), out.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
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
        Await.elapse(Duration.ofSeconds(2));
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
                    fault("store restarted");
                    server.restart();
                    break;
                case 3:
                    fault("store paused");
                    server.pause();
                    Await.elapse(Duration.ofMillis(1_000 + random.nextInt(2_000)));
                    server.resume();
                    break;
                default:
                    Await.elapse(Duration.ofMillis(1_500));
                    break;
            }
        }
        Await.elapse(Duration.ofSeconds(2));
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
                + duplicates;
        System.out.println(summary);
        assertTrue(ids.length > 10_000, summary);
        assertEquals(0, duplicates, summary);
        return summary;
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
