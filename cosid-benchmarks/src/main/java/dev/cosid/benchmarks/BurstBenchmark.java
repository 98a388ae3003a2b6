package dev.cosid.benchmarks;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The time to issue a burst of 1,000,000 ids, one {@code nextId()} at a time, from a generator that
 * has issued nothing yet (a new runtime on a new store before each burst), default layout. At the
 * sequence limit (4,096 ids a millisecond) the burst needs 245 units of the clock, about 244 ms;
 * {@code maxLead} lets it borrow them from the lease's window instead.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Warmup(iterations = 10)
@Measurement(iterations = 20)
@Fork(1)
public class BurstBenchmark {

    /** The burst. */
    static final int BURST = 1_000_000;

    /** none: wait for the clock (the default); lead: maxLead 1 s; leadTicking: and the ticking clock. */
    @Param({"none", "lead", "leadTicking"})
    public String mode;

    private CosIdRuntime runtime;
    private SnowflakeId ids;

    @Setup(Level.Invocation)
    public void coldStart() {
        CosIdRuntime.Builder builder = CosIdRuntime.builder().namespace("burst").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5));
        if (!mode.equals("none")) {
            builder.maxLead(Duration.ofSeconds(1));
        }
        if (mode.equals("leadTicking")) {
            builder.tickingClock(true);
        }
        runtime = builder.start();
        ids = runtime.snowflake("burst");
    }

    @TearDown(Level.Invocation)
    public void close() {
        runtime.close();
    }

    @Benchmark
    public long burst() {
        long last = 0;
        for (int i = 0; i < BURST; i++) {
            last = ids.nextId();
        }
        return last;
    }
}
