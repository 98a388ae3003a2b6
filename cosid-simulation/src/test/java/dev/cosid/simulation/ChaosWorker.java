package dev.cosid.simulation;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.SlotsExhaustedException;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.SlotLease;
import dev.cosid.time.Clock;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A chaos worker process: issues ids in batches of 16, paced, from a real store, on a clock with an offset,
 * and writes each id to its own file (8 bytes, big-endian), until it is killed.
 */
public final class ChaosWorker {

    private ChaosWorker() {
    }

    /** Prints the lease events with the wall time, so a run can tell where a worker's long gap went. */
    private static final class Narrator implements CosIdListener {
        private static final Clock WALL = Clock.system();

        private static void say(String what) {
            System.out.println(WALL.nowMillis() + " " + what);
        }

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
     * Runs the worker.
     *
     * @param args store URL, owner key, clock offset in ms, output file, the pause after each batch of ids in
     *     microseconds, and optionally {@code --takeover-guard}
     * @throws IOException when the output cannot be written
     */
    public static void main(String[] args) throws IOException {
        Clock clock = Clock.offset(Clock.system(), Duration.ofMillis(Long.parseLong(args[2])));
        long paceNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[4]));
        boolean takeoverGuard = args.length > 5 && args[5].equals("--takeover-guard");
        CosIdRuntime runtime = null;
        while (runtime == null) {
            try {
                runtime = CosIdRuntime.builder().namespace("chaos").store(args[0]).ownerKey(args[1])
                        .ttl(Duration.ofSeconds(2)).tolerance(Duration.ofMillis(500)).bits(3)
                        .takeoverGuard(takeoverGuard).listener(new Narrator())
                        .maxWait(Duration.ofMillis(100)).acquireTimeout(Duration.ofSeconds(2)).clock(clock).start();
            } catch (SlotsExhaustedException | LeaseStoreException e) {
                System.out.println("no runtime yet: " + e.getMessage());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            }
        }
        // the generator records its layout in the store, which the nemesis may be restarting just now
        System.out.println("runtime started on slot " + runtime.lease().slot());
        SnowflakeId ids = null;
        while (ids == null) {
            try {
                ids = runtime.snowflake("chaos");
            } catch (LeaseStoreException e) {
                System.out.println("no generator yet: " + e.getMessage());
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            }
        }
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(
                Files.newOutputStream(Path.of(args[3])), 1 << 16))) {
            boolean announced = false;
            long refusals = 0;
            for (long batches = 1; ; batches++) {
                try {
                    for (long id : ids.nextIds(16)) {
                        out.writeLong(id);
                    }
                } catch (IdUnavailableException e) {
                    if (refusals++ % 10_000 == 0) {
                        System.out.println(clock.nowMillis() - Long.parseLong(args[2]) + " refused (" + refusals
                                + " so far): " + e.getMessage());
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                if (batches % 64 == 0 || !announced && out.size() > 0) { // the first ids tell the nemesis it issues
                    announced = true;
                    out.flush();
                }
                // paced: at 100 us a few hundred thousand ids a second keep the files small
                LockSupport.parkNanos(paceNanos);
            }
        }
    }
}
