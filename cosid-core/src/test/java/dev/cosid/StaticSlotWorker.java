package dev.cosid;

import dev.cosid.time.Clock;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A worker process for {@link StaticSlotProcessTest}: issues ids on a static slot as fast as it can and
 * writes them to a file, until it is killed. {@code check} mode only starts the runtime.
 */
public final class StaticSlotWorker {

    private StaticSlotWorker() {
    }

    /**
     * Runs the worker.
     *
     * @param args mode (run or check), state file, slot, ahead ms, clock offset ms, output file
     * @throws IOException when the output cannot be written
     */
    public static void main(String[] args) throws IOException {
        Clock clock = Clock.offset(Clock.system(), Duration.ofMillis(Long.parseLong(args[4])));
        CosIdRuntime.Builder builder = CosIdRuntime.builder()
                .namespace("worker")
                .staticSlot(Integer.parseInt(args[2]))
                .stateFile(Path.of(args[1]))
                .ahead(Duration.ofMillis(Long.parseLong(args[3])))
                .maxWait(Duration.ofSeconds(60))
                .clock(clock);
        CosIdRuntime runtime;
        try {
            runtime = builder.start();
        } catch (StateFileException e) {
            System.err.println(e.getMessage());
            System.exit(3);
            return;
        }
        if (args[0].equals("check")) {
            runtime.close();
            return;
        }
        SnowflakeId ids = runtime.snowflake("order");
        try (BufferedWriter out = Files.newBufferedWriter(Path.of(args[5]))) {
            for (long n = 1; ; n++) {
                out.write(Long.toString(ids.nextId()));
                out.write('\n');
                if (n % 256 == 0) {
                    out.flush();
                }
            }
        }
    }
}
