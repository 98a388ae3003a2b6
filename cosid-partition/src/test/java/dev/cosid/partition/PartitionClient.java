package dev.cosid.partition;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A client process of a partition run, started inside one side: one runtime on slot bits 0 with the takeover and
 * cold-start guards (ttl 3 s, tolerance 500 ms), issuing ids at a steady rate and writing each as a pair of longs
 * (the wall time in ms, the id) to its file, until its standard input closes. Lease events go to standard output
 * with the wall time.
 */
public final class PartitionClient {

    /** The namespace every client works in. */
    static final String NAMESPACE = "partition";
    /** The lease duration of every client. */
    static final Duration TTL = Duration.ofSeconds(3);
    /** The clock tolerance of every client. */
    static final Duration TOLERANCE = Duration.ofMillis(500);

    /** How long closing the runtime may take before the process ends without it. */
    static final Duration CLOSE_BOUND = Duration.ofSeconds(5);

    private static final Clock WALL = Clock.system();
    private static volatile boolean stopping;

    private PartitionClient() {
    }

    private static void say(String what) {
        System.out.println(WALL.nowMillis() + " " + what);
    }

    /** Prints the lease events, a failing renewal once and then every tenth attempt. */
    private static final class Narrator implements CosIdListener {
        @Override
        public void onSlotAcquired(SlotLease lease, Duration took) {
            say("acquired in " + took.toMillis() + " ms: " + lease);
        }

        @Override
        public void onRenewalFailed(Throwable cause, int attempt) {
            if (attempt == 1 || attempt % 10 == 0) {
                say("renewal failed (attempt " + attempt + "): " + cause.getMessage());
            }
        }

        @Override
        public void onSlotLost(SlotLease lease) {
            say("lost " + lease);
        }

        @Override
        public void onExhausted(long earliestExpiry) {
            say("no slot free before " + earliestExpiry);
        }
    }

    /**
     * Runs the client.
     *
     * @param args store URL, owner key, ids a second, output file
     * @throws IOException when the output cannot be written
     */
    public static void main(String[] args) throws IOException {
        String url = args[0];
        long rate = Long.parseLong(args[2]);
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // any input is ignored; the end of it stops the client
                }
            } catch (IOException e) {
                // a broken pipe means the test is gone: stop as well
            }
            stopping = true;
        }, "stdin-watcher");
        watcher.setDaemon(true);
        watcher.start();
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                Files.newOutputStream(Path.of(args[3])), 1 << 16))) {
            run(url, args[1], rate, out);
        } finally {
            say("stopped");
            System.out.flush();
            // a runtime cut off from its store may wait on it while closing: the test wants the process gone now
            Runtime.getRuntime().halt(0);
        }
    }

    private static void run(String url, String owner, long rate, DataOutputStream out) throws IOException {
        CosIdRuntime runtime = null;
        while (runtime == null && !stopping) {
            try {
                runtime = CosIdRuntime.builder().namespace(NAMESPACE).store(url).ownerKey(owner).bits(0)
                        .ttl(TTL).tolerance(TOLERANCE).takeoverGuard(true).coldStartGuard(true)
                        .listener(new Narrator()).maxWait(Duration.ofMillis(50)).acquireTimeout(Duration.ofSeconds(2))
                        .start();
            } catch (RuntimeException e) {
                say("no runtime yet: " + e);
                park(200);
            }
        }
        if (runtime == null) {
            return;
        }
        say("runtime started on slot " + runtime.lease().slot());
        SnowflakeId ids = null;
        while (ids == null && !stopping) {
            try {
                ids = runtime.snowflake("partition");
            } catch (RuntimeException e) {
                say("no generator yet: " + e);
                park(200);
            }
        }
        long started = WALL.monotonicNanos();
        long issued = 0;
        long refusals = 0;
        long lastFlush = started;
        while (!stopping && ids != null) {
            long now = WALL.monotonicNanos();
            long due = (now - started) / 1_000 * rate / 1_000_000;
            while (issued < due && !stopping) {
                try {
                    long id = ids.nextId();
                    out.writeLong(WALL.nowMillis());
                    out.writeLong(id);
                    issued++;
                } catch (IdUnavailableException e) {
                    if (refusals++ % 1000 == 0) {
                        say("refused (" + refusals + " so far): " + e.getMessage());
                    }
                    // ids not issued while refused are not made up later: the rate restarts from here
                    started = WALL.monotonicNanos() - issued * 1_000_000_000L / rate;
                    break;
                }
            }
            if (WALL.monotonicNanos() - lastFlush > TimeUnit.MILLISECONDS.toNanos(20)) {
                out.flush();
                lastFlush = WALL.monotonicNanos();
            }
            park(1);
        }
        out.flush();
        say("issued " + issued + " ids, refused " + refusals + " times");
        close(runtime);
    }

    /**
     * Closes the runtime as a user's process ends, so a store call still in flight (a commit waiting for a
     * cut-off standby) is cancelled rather than left to the server; bounded, since a cut-off runtime may wait on
     * its store while giving its window back.
     */
    private static void close(CosIdRuntime runtime) {
        Thread closer = new Thread(runtime::close, "closer");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(CLOSE_BOUND.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        say(closer.isAlive() ? "not closed within " + CLOSE_BOUND.toMillis() + " ms" : "closed");
    }

    private static void park(long millis) {
        WALL.park(TimeUnit.MILLISECONDS.toNanos(millis));
    }
}
