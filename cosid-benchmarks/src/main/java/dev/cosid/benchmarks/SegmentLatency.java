package dev.cosid.benchmarks;

import dev.cosid.CosIdRuntime;
import dev.cosid.SegmentId;
import dev.cosid.lease.InMemoryLeaseStore;
import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SegmentRange;
import dev.cosid.lease.SlotLease;
import dev.cosid.lease.SlotTable;
import dev.cosid.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import me.ahoo.cosid.segment.IdSegmentDistributor;
import me.ahoo.cosid.segment.SegmentChainId;
import org.HdrHistogram.Histogram;

/**
 * The latency of {@code nextId()} at a steady rate while every segment reservation takes 50 ms: one
 * thread issues {@code rate} ids a second for {@code seconds} (after as long a warm-up), timing each call
 * into an HdrHistogram, for ours and for CosId 2.13.3's {@code SegmentChainId} on a distributor that
 * takes as long. The goal: p99.99 under 10 µs, no call waiting on the store.
 *
 * <pre>{@code
 * java -cp cosid-benchmarks/target/benchmarks.jar dev.cosid.benchmarks.SegmentLatency [rate] [seconds]
 * }</pre>
 */
public final class SegmentLatency {

    private static final long STORE_NANOS = 50_000_000L;

    private SegmentLatency() {
    }

    /**
     * Runs both generators and prints one line of percentiles each.
     *
     * @param args the rate in ids a second (default 1,000,000) and the seconds measured (default 20)
     */
    public static void main(String[] args) {
        long rate = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 20L;
        Clock clock = Clock.system();
        SlowStore store = new SlowStore(new InMemoryLeaseStore(), clock);
        try (CosIdRuntime runtime = CosIdRuntime.builder().namespace("latency").store(store)
                .ttl(Duration.ofMinutes(5)).maxWait(Duration.ofSeconds(5)).start()) {
            SegmentId ours = runtime.segment("latency");
            report("ours", run(ours::nextId, rate, seconds, clock), store.reservations.get());
        }
        AtomicLong cosid2Calls = new AtomicLong();
        SegmentChainId cosid2 = new SegmentChainId(new SlowDistributor(clock, cosid2Calls));
        report("cosid2 SegmentChainId step 1000", run(cosid2::generate, rate, seconds, clock), cosid2Calls.get());
    }

    /** Warms up for {@code seconds}, then issues {@code rate} ids a second for {@code seconds}, timing each. */
    private static Histogram run(LongSupplier next, long rate, long seconds, Clock clock) {
        Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        long period = 1_000_000_000L / rate;
        for (int phase = 0; phase < 2; phase++) {
            histogram.reset();
            long start = clock.monotonicNanos();
            long total = rate * seconds;
            for (long i = 0; i < total; i++) {
                long due = start + i * period;
                long now;
                while ((now = clock.monotonicNanos()) < due) {
                    Thread.onSpinWait();
                }
                long id = next.getAsLong();
                long took = clock.monotonicNanos() - now;
                if (id <= 0) {
                    throw new IllegalStateException("id " + id);
                }
                histogram.recordValue(took);
            }
        }
        return histogram;
    }

    private static void report(String name, Histogram histogram, long storeCalls) {
        System.out.printf(Locale.ROOT, "%-32s calls %,d  p50 %,.0f ns  p99 %,.0f ns  p99.9 %,.0f ns  p99.99 %,.0f ns"
                        + "  max %,.0f ns  calls over 10 us %,d  store calls %,d%n", name, histogram.getTotalCount(),
                (double) histogram.getValueAtPercentile(50), (double) histogram.getValueAtPercentile(99),
                (double) histogram.getValueAtPercentile(99.9), (double) histogram.getValueAtPercentile(99.99),
                (double) histogram.getMaxValue(), histogram.getCountBetweenValues(10_001, histogram.getMaxValue()),
                storeCalls);
    }

    /** CosId 2.x's in-memory distributor, taking 50 ms a call like the store. */
    private static final class SlowDistributor implements IdSegmentDistributor {
        private final IdSegmentDistributor atomic = new IdSegmentDistributor.Atomic(1_000);
        private final Clock clock;
        private final AtomicLong calls;

        SlowDistributor(Clock clock, AtomicLong calls) {
            this.clock = clock;
            this.calls = calls;
        }

        @Override
        public String getNamespace() {
            return atomic.getNamespace();
        }

        @Override
        public String getName() {
            return atomic.getName();
        }

        @Override
        public long getStep() {
            return atomic.getStep();
        }

        @Override
        public long nextMaxId(long step) {
            calls.incrementAndGet();
            parkFor(clock, STORE_NANOS);
            return atomic.nextMaxId(step);
        }
    }

    private static void parkFor(Clock clock, long nanos) {
        long until = clock.monotonicNanos() + nanos;
        for (long left = nanos; left > 0; left = until - clock.monotonicNanos()) {
            clock.park(left);
        }
    }

    /** The in-memory store, taking 50 ms for every segment reservation and tail return. */
    private static final class SlowStore implements LeaseStore {
        private final LeaseStore store;
        private final Clock clock;
        final AtomicLong reservations = new AtomicLong();

        SlowStore(LeaseStore store, Clock clock) {
            this.store = store;
            this.clock = clock;
        }

        @Override
        public SegmentRange reserveSegment(String namespace, String name, long size) {
            reservations.incrementAndGet();
            parkFor(clock, STORE_NANOS);
            return store.reserveSegment(namespace, name, size);
        }

        @Override
        public boolean returnSegmentTail(SegmentRange range, long lastIssued) {
            parkFor(clock, STORE_NANOS);
            return store.returnSegmentTail(range, lastIssued);
        }

        @Override
        public NamespaceRecord register(String namespace, NamespaceRecord proposed) {
            return store.register(namespace, proposed);
        }

        @Override
        public Optional<NamespaceRecord> namespace(String namespace) {
            return store.namespace(namespace);
        }

        @Override
        public dev.cosid.lease.LayoutRecord registerLayout(String namespace, String name,
                                                           dev.cosid.lease.LayoutRecord proposed) {
            return store.registerLayout(namespace, name, proposed);
        }

        @Override
        public SlotTable read(String namespace) {
            return store.read(namespace);
        }

        @Override
        public Optional<SlotLease> acquire(String namespace, int slot, Owner owner, LeaseTerms terms) {
            return store.acquire(namespace, slot, owner, terms);
        }

        @Override
        public Optional<SlotLease> renew(SlotLease lease, LeaseTerms terms) {
            return store.renew(lease, terms);
        }

        @Override
        public boolean release(SlotLease lease, long lastIssuedMillis) {
            return store.release(lease, lastIssuedMillis);
        }

        @Override
        public String describe() {
            return "memory: at 50 ms a segment call";
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
