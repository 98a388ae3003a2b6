package dev.cosid.benchmarks;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.SegmentPolicy;
import dev.cosid.lease.InMemoryLeaseStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import me.ahoo.cosid.segment.DefaultSegmentId;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Segment ids per second: ours ({@code runtime.segment(name)} on the in-memory store) against CosId
 * 2.13.3's {@code SegmentChainId} and {@code DefaultSegmentId} on its in-memory
 * {@code IdSegmentDistributor.Atomic}, every one with ranges of {@code step} ids (ours fixed at that
 * size: {@code SegmentPolicy.of(step, step, 100 ms)}). Run with {@code -t 1} and {@code -t 2}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class SegmentBenchmark {

    @Param({"1000"})
    public long step;

    private CosIdRuntime runtime;
    private SegmentId ours;
    private SegmentChainId cosid2Chain;
    private DefaultSegmentId cosid2Default;

    @Setup(Level.Trial)
    public void setUp() {
        runtime = CosIdRuntime.builder().namespace("bench").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).start();
        ours = runtime.segment("bench", SegmentPolicy.of(step, step, Duration.ofMillis(100)));
        cosid2Chain = new SegmentChainId(new IdSegmentDistributor.Atomic(step));
        cosid2Default = new DefaultSegmentId(new IdSegmentDistributor.Atomic(step));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        runtime.close();
    }

    @Benchmark
    public long ours() {
        return ours.nextId();
    }

    @Benchmark
    public long cosid2SegmentChainId() {
        return cosid2Chain.generate();
    }

    @Benchmark
    public long cosid2DefaultSegmentId() {
        return cosid2Default.generate();
    }
}
