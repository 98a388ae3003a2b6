package dev.cosid.micrometer;

import dev.cosid.CosIdListener;
import dev.cosid.CosIdRuntime;
import dev.cosid.IdUnavailableException;
import dev.cosid.RuntimeStatus;
import dev.cosid.SnowflakeId;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Micrometer meters of one CosId runtime.
 *
 * <p>Events (renewals, losses, acquisitions) are counted as the keeper reports them, so pass this
 * object as the runtime's listener; gauges and the per-generator counters read the runtime's
 * {@link CosIdRuntime#status() status} and {@link SnowflakeId#stats() stats} when the registry is
 * scraped, so nothing is added to {@code nextId()}.
 *
 * <table>
 * <caption>Meters; every one is tagged {@code namespace} plus the tags given here</caption>
 * <tr><th>name</th><th>type</th><th>extra tags</th><th>what</th></tr>
 * <tr><td>{@code cosid.ids.issued}</td><td>function counter</td><td>{@code generator}</td><td>ids issued</td></tr>
 * <tr><td>{@code cosid.ids.refused}</td><td>function counter</td><td>{@code generator}, {@code reason}</td>
 *     <td>calls refused with {@code IdUnavailableException}, by reason (floor, ceiling, sequence,
 *     clock_behind, clock_out_of_range, slot_lost, closed)</td></tr>
 * <tr><td>{@code cosid.lease.renewals}</td><td>counter</td><td>{@code outcome} (success, failure)</td>
 *     <td>renewals and failed renewals or re-acquisitions</td></tr>
 * <tr><td>{@code cosid.lease.lost}</td><td>counter</td><td></td><td>leases a renewal found gone</td></tr>
 * <tr><td>{@code cosid.lease.acquire}</td><td>timer</td><td></td><td>time to acquire a slot</td></tr>
 * <tr><td>{@code cosid.lease.window.remaining}</td><td>time gauge</td><td></td><td>ceiling minus now</td></tr>
 * <tr><td>{@code cosid.lease.bound}</td><td>gauge</td><td></td><td>1 while ids can be issued now, else 0</td></tr>
 * <tr><td>{@code cosid.lease.slot}</td><td>gauge</td><td></td><td>the slot held (or last held)</td></tr>
 * <tr><td>{@code cosid.lease.fence}</td><td>gauge</td><td></td><td>the fence of the lease</td></tr>
 * <tr><td>{@code cosid.clock.skew}</td><td>time gauge</td><td></td><td>local clock minus the store's</td></tr>
 * <tr><td>{@code cosid.layout.runway}</td><td>time gauge</td><td></td><td>time until the first of the
 *     runtime's layouts runs out of timestamp bits ({@link RuntimeStatus#runwayMillis()}); seconds in Prometheus</td></tr>
 * <tr><td>{@code cosid.segment.reservations}</td><td>counter</td><td>{@code segment}</td><td>ranges a
 *     segment generator reserved from its store counter</td></tr>
 * <tr><td>{@code cosid.segment.reserved}</td><td>counter</td><td>{@code segment}</td><td>ids in those ranges</td></tr>
 * <tr><td>{@code cosid.segment.failures}</td><td>counter</td><td>{@code segment}</td><td>reservations that
 *     failed and are retried</td></tr>
 * </table>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * CosIdMetrics metrics = new CosIdMetrics(registry, "orders");
 * try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("orders").store(url).listener(metrics).start()) {
 *     metrics.bind(runtime);
 *     runtime.snowflake("order").nextId();
 * }
 * }</pre>
 */
public final class CosIdMetrics implements CosIdListener {

    private final MeterRegistry registry;
    private final Tags tags;
    private final Counter renewed;
    private final Counter renewalFailed;
    private final Counter lost;
    private final Timer acquire;
    private final AtomicReference<CosIdRuntime> runtime = new AtomicReference<>();
    private final Set<String> boundGenerators = ConcurrentHashMap.newKeySet();

    /**
     * Registers the event meters of a namespace.
     *
     * @param registry where the meters go
     * @param namespace the runtime's namespace, the {@code namespace} tag
     * @param extraTags tags added to every meter
     */
    public CosIdMetrics(MeterRegistry registry, String namespace, Tag... extraTags) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(extraTags).and("namespace", Objects.requireNonNull(namespace, "namespace"));
        this.renewed = Counter.builder("cosid.lease.renewals").description("lease renewals by outcome")
                .tags(tags).tag("outcome", "success").register(registry);
        this.renewalFailed = Counter.builder("cosid.lease.renewals").description("lease renewals by outcome")
                .tags(tags).tag("outcome", "failure").register(registry);
        this.lost = Counter.builder("cosid.lease.lost").description("leases a renewal found gone")
                .tags(tags).register(registry);
        this.acquire = Timer.builder("cosid.lease.acquire").description("time to acquire a slot")
                .tags(tags).register(registry);
    }

    /**
     * Registers the gauges of a running runtime and the counters of its generators, those created
     * so far and, through {@link #onGeneratorCreated}, those created later.
     *
     * @param running the runtime this object listens to
     * @return this
     * @throws IllegalStateException when already bound to another runtime
     */
    public CosIdMetrics bind(CosIdRuntime running) {
        Objects.requireNonNull(running, "runtime");
        if (!runtime.compareAndSet(null, running) && runtime.get() != running) {
            throw new IllegalStateException("these meters are bound to the runtime of namespace '"
                    + runtime.get().namespace() + "' already");
        }
        TimeGauge.builder("cosid.lease.window.remaining", running,
                        TimeUnit.MILLISECONDS, r -> r.status().windowRemainingMillis())
                .description("ceiling minus now: how long ids can be issued without another renewal")
                .tags(tags).register(registry);
        TimeGauge.builder("cosid.clock.skew", running, TimeUnit.MILLISECONDS, r -> r.status().clockSkewMillis())
                .description("the local clock minus the store's, at the latest store answer")
                .tags(tags).register(registry);
        TimeGauge.builder("cosid.layout.runway", running, TimeUnit.MILLISECONDS, r -> r.status().runwayMillis())
                .description("time until the first of the runtime's layouts runs out of timestamp bits")
                .tags(tags).register(registry);
        Gauge.builder("cosid.lease.bound", running, r -> r.status().canIssue() ? 1 : 0)
                .description("1 while a bound window covers now, else 0").tags(tags).register(registry);
        Gauge.builder("cosid.lease.slot", running, r -> r.status().lease().slot())
                .description("the slot held, or last held").tags(tags).register(registry);
        Gauge.builder("cosid.lease.fence", running, r -> r.status().lease().fence())
                .description("the fence of the lease").tags(tags).register(registry);
        running.generators().forEach(this::registerGenerator);
        return this;
    }

    private void registerGenerator(SnowflakeId generator) {
        if (!boundGenerators.add(generator.name())) {
            return;
        }
        Tags generatorTags = tags.and("generator", generator.name());

        FunctionCounter.builder("cosid.ids.issued", generator, g -> g.stats().issued())
                .description("ids issued").tags(generatorTags).register(registry);
        for (IdUnavailableException.Reason reason : IdUnavailableException.Reason.values()) {
            FunctionCounter.builder("cosid.ids.refused", generator, g -> g.stats().refused(reason))
                    .description("calls refused with IdUnavailableException, by reason")
                    .tags(generatorTags).tag("reason", reason.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }

    /** Returns the status of the bound runtime, for callers that show it beside the meters. */
    public RuntimeStatus status() {
        CosIdRuntime bound = runtime.get();
        if (bound == null) {
            throw new IllegalStateException("not bound to a runtime yet: call bind(runtime)");
        }
        return bound.status();
    }

    @Override
    public void onSlotAcquired(SlotLease lease, Duration took) {
        acquire.record(took);
    }

    @Override
    public void onRenewed(SlotLease lease) {
        renewed.increment();
    }

    @Override
    public void onRenewalFailed(Throwable cause, int attempt) {
        renewalFailed.increment();
    }

    @Override
    public void onSlotLost(SlotLease lease) {
        lost.increment();
    }

    @Override
    public void onSegmentReserved(SegmentRange range) {
        Counter.builder("cosid.segment.reservations").description("ranges reserved from a segment counter")
                .tags(tags).tag("segment", range.name()).register(registry).increment();
        Counter.builder("cosid.segment.reserved").description("ids in the ranges reserved from a segment counter")
                .tags(tags).tag("segment", range.name()).register(registry).increment(range.size());
    }

    @Override
    public void onSegmentFailed(String name, Throwable cause, int attempt) {
        Counter.builder("cosid.segment.failures").description("segment reservations that failed and are retried")
                .tags(tags).tag("segment", name).register(registry).increment();
    }

    @Override
    public void onGeneratorCreated(SnowflakeId generator) {
        if (runtime.get() != null) {
            registerGenerator(generator);
        }
    }
}
