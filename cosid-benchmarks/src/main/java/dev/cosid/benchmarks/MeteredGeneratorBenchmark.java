package dev.cosid.benchmarks;

import dev.cosid.CosIdRuntime;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.micrometer.CosIdMetrics;
import dev.cosid.time.Scheduler;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The default layout's ids per second with and without the Micrometer meters bound, side by side in one
 * run: the meters read the generator's counts only when scraped, so {@code nextId()} pays nothing for
 * them. The metered runtime is scraped every 100 ms throughout, far more often than Prometheus would.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class MeteredGeneratorBenchmark {

    private CosIdRuntime plainRuntime;
    private CosIdRuntime meteredRuntime;
    private SnowflakeId plain;
    private SnowflakeId metered;
    private Scheduler scraper;
    private volatile double scraped;

    @Setup(Level.Trial)
    public void setUp() {
        plainRuntime = CosIdRuntime.builder().namespace("plain").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).start();
        plain = plainRuntime.snowflake("bench");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CosIdMetrics metrics = new CosIdMetrics(registry, "metered");
        meteredRuntime = CosIdRuntime.builder().namespace("metered").store(new InMemoryLeaseStore())
                .ttl(Duration.ofMinutes(5)).listener(metrics).start();
        metered = meteredRuntime.snowflake("bench");
        metrics.bind(meteredRuntime);
        scraper = Scheduler.newSingleThread("scraper");
        scrape(registry);
    }

    private void scrape(SimpleMeterRegistry registry) {
        double sum = 0;
        for (Meter meter : registry.getMeters()) {
            for (Measurement measurement : meter.measure()) {
                sum += measurement.getValue();
            }
        }
        scraped = sum;
        scraper.schedule(Duration.ofMillis(100), () -> scrape(registry));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scraper.close();
        plainRuntime.close();
        meteredRuntime.close();
    }

    @Benchmark
    public long withoutMetrics() {
        return plain.nextId();
    }

    @Benchmark
    public long withMetrics() {
        return metered.nextId();
    }
}
