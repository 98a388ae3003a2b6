package dev.cosid.benchmarks;

import cn.hutool.core.lang.Snowflake;
import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import com.github.f4b6a3.tsid.TsidFactory;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdLayout;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.agrona.concurrent.SnowflakeIdGenerator;
import org.agrona.concurrent.SystemEpochClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Ids per second of our generator and the peers, measured side by side in one run. The default
 * layouts are bound by their 12-bit sequence: 4,096,000 ids/s. The wide layouts (21-bit sequence)
 * show the per-id cost when that limit does not bind. The {@code Ticking} variants read the wall clock
 * from {@code Clock.ticking()}; {@code oursLead} may run up to a second ahead of the clock
 * ({@code maxLead}), which a steady stream uses up within the first second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class GeneratorBenchmark {

    /** 41 timestamp bits, 1 slot bit, 21 sequence bits: two million ids per millisecond. */
    static final IdLayout WIDE = new IdLayout(IdLayout.COSID_EPOCH_MILLIS, 1, 41, 1, 21);

    private CosIdRuntime runtime;
    private CosIdRuntime wideRuntime;
    private CosIdRuntime tickingRuntime;
    private CosIdRuntime wideTickingRuntime;
    private CosIdRuntime leadRuntime;
    private SnowflakeId ours;
    private SnowflakeId oursWide;
    private SnowflakeId oursTicking;
    private SnowflakeId oursWideTicking;
    private SnowflakeId oursLead;
    private MillisecondSnowflakeId cosid2;
    private SnowflakeIdGenerator agrona;
    private SnowflakeIdGenerator agronaWide;
    private TsidFactory tsid;
    private Snowflake hutool;
    private TimeBasedEpochGenerator uuidV7;

    @Setup(Level.Trial)
    public void setUp() {
        runtime = CosIdRuntime.builder().namespace("bench").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).start();
        ours = runtime.snowflake("bench");
        wideRuntime = CosIdRuntime.builder().namespace("wide").store(new InMemoryLeaseStore()).bits(1)
                .ttl(Duration.ofMinutes(5)).start();
        oursWide = wideRuntime.snowflake("wide", WIDE);
        tickingRuntime = CosIdRuntime.builder().namespace("ticking").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).tickingClock(true).start();
        oursTicking = tickingRuntime.snowflake("ticking");
        wideTickingRuntime = CosIdRuntime.builder().namespace("wide-ticking").store(new InMemoryLeaseStore()).bits(1)
                .ttl(Duration.ofMinutes(5)).tickingClock(true).start();
        oursWideTicking = wideTickingRuntime.snowflake("wide", WIDE);
        leadRuntime = CosIdRuntime.builder().namespace("lead").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).maxLead(Duration.ofSeconds(1)).start();
        oursLead = leadRuntime.snowflake("lead");
        cosid2 = new MillisecondSnowflakeId(1);
        agrona = new SnowflakeIdGenerator(1);
        agronaWide = new SnowflakeIdGenerator(1, 21, 1, IdLayout.COSID_EPOCH_MILLIS, SystemEpochClock.INSTANCE);
        tsid = TsidFactory.newInstance1024(1);
        hutool = new Snowflake(1, 1);
        uuidV7 = Generators.timeBasedEpochGenerator();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        runtime.close();
        wideRuntime.close();
        tickingRuntime.close();
        wideTickingRuntime.close();
        leadRuntime.close();
    }

    @Benchmark
    public long ours() {
        return ours.nextId();
    }

    @Benchmark
    @OperationsPerInvocation(100)
    public long[] oursBatch100() {
        return ours.nextIds(100);
    }

    @Benchmark
    public long oursWide() {
        return oursWide.nextId();
    }

    @Benchmark
    public long oursTicking() {
        return oursTicking.nextId();
    }

    @Benchmark
    public long oursWideTicking() {
        return oursWideTicking.nextId();
    }

    @Benchmark
    public long oursLead() {
        return oursLead.nextId();
    }

    @Benchmark
    public long cosid2Millisecond() {
        return cosid2.generate();
    }

    @Benchmark
    public long agrona() {
        return agrona.nextId();
    }

    @Benchmark
    public long agronaWide() {
        return agronaWide.nextId();
    }

    @Benchmark
    public long tsidCreator() {
        return tsid.create().toLong();
    }

    @Benchmark
    public long hutool() {
        return hutool.nextId();
    }

    @Benchmark
    public UUID uuidV7() {
        return uuidV7.generate();
    }

    @Benchmark
    public UUID uuidRandom() {
        return UUID.randomUUID();
    }
}
