package dev.cosid.cli;

import dev.cosid.testkit.Await;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import me.ahoo.cosid.machine.DefaultMachineIdGuarder;
import me.ahoo.cosid.machine.InstanceId;
import me.ahoo.cosid.machine.MachineIdDistributor;
import me.ahoo.cosid.machine.MachineState;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import me.ahoo.cosid.snowflake.SnowflakeId;

/**
 * One CosId 2.x service instance, run by CosId's own classes: its distributor hands out the machine id,
 * its guarder writes the machine state on a schedule, its generator issues ids on the host's real
 * clock, and it stops cleanly (the distributor's revert) or crashes (no revert).
 *
 * <p>CosId's guarder writes every minute and its safe guard is minutes long by default; the tests
 * keep the same order (guard interval well below the safe guard) at a smaller scale.
 */
final class LegacyInstance {

    /** How often this test's CosId guarder writes the machine state. */
    static final Duration GUARD_EVERY = Duration.ofMillis(100);
    /**
     * CosId's safe-guard duration in these tests, and the one given to {@code migrate}: far above the
     * guard interval, so a guard write that a loaded machine delays still falls within it.
     */
    static final Duration SAFE_GUARD = Duration.ofSeconds(5);

    private final MachineIdDistributor distributor;
    private final String namespace;
    private final InstanceId instanceId;
    private final ScheduledExecutorService guardThread;
    private final DefaultMachineIdGuarder guarder;
    private final SnowflakeId generator;
    private final int machineId;
    private long[] ids = new long[1024];
    private int count;

    private LegacyInstance(MachineIdDistributor distributor, String namespace, String instanceId, int machineBit,
                           IntFunction<SnowflakeId> generatorOf) {
        this.distributor = distributor;
        this.namespace = namespace;
        this.instanceId = InstanceId.of(instanceId, false);
        MachineState state = distributor.distribute(namespace, machineBit, this.instanceId, SAFE_GUARD);
        this.machineId = state.getMachineId();
        this.generator = generatorOf.apply(machineId);
        this.guardThread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "cosid-2-guarder-" + instanceId);
            thread.setDaemon(true);
            return thread;
        });
        this.guarder = new DefaultMachineIdGuarder(distributor, guardThread, GUARD_EVERY, GUARD_EVERY, SAFE_GUARD);
        guarder.register(namespace, this.instanceId);
        guarder.start();
    }

    /** Starts an instance with CosId's default millisecond generator, 41 + 10 + 12 bits. */
    static LegacyInstance start(MachineIdDistributor distributor, String namespace, String instanceId) {
        return new LegacyInstance(distributor, namespace, instanceId, MillisecondSnowflakeId.DEFAULT_MACHINE_BIT,
                MillisecondSnowflakeId::new);
    }

    /** Starts an instance with another CosId generator. */
    static LegacyInstance start(MachineIdDistributor distributor, String namespace, String instanceId, int machineBit,
                                IntFunction<SnowflakeId> generatorOf) {
        return new LegacyInstance(distributor, namespace, instanceId, machineBit, generatorOf);
    }

    int machineId() {
        return machineId;
    }

    SnowflakeId generator() {
        return generator;
    }

    /**
     * Issues ids for a stretch of real time, a few each tenth of a millisecond: CosId's generator
     * reads the host's clock, so only real time can move it.
     */
    LegacyInstance issueFor(Duration extent) {
        long deadline = dev.cosid.time.Clock.system().monotonicNanos() + extent.toNanos();
        while (dev.cosid.time.Clock.system().monotonicNanos() < deadline) {
            for (int i = 0; i < 8; i++) {
                add(generator.generate());
            }
            Await.elapse(Duration.ofNanos(100_000));
        }
        return this;
    }

    /** Stops as a Spring application does on shutdown: the guarder stops, then the machine id is reverted. */
    void stopCleanly() {
        stopGuarding();
        distributor.revert(namespace, instanceId);
    }

    /** Dies without a word: the guarder stops and nothing is reverted. */
    void crash() {
        stopGuarding();
    }

    private void stopGuarding() {
        guarder.stop();
        guardThread.shutdownNow();
        try {
            if (!guardThread.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new AssertionError("CosId's guarder did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    long[] ids() {
        return Arrays.copyOf(ids, count);
    }

    long lastId() {
        return ids[count - 1];
    }

    private void add(long id) {
        if (count == ids.length) {
            ids = Arrays.copyOf(ids, count * 2);
        }
        ids[count++] = id;
    }
}
