package dev.cosid.simulation;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseTerms;
import dev.cosid.lease.Owner;
import dev.cosid.lease.SlotLease;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DebugRevertTest {
    static final class Logging extends SimStoreDelegate {
        final LeaseStore inner;
        Logging(LeaseStore s) { super(s); inner = s; }
        @Override public dev.cosid.lease.LayoutRecord registerLayout(String ns, String n, dev.cosid.lease.LayoutRecord p) { return inner.registerLayout(ns, n, p); }
        @Override public Optional<SlotLease> acquire(String ns, int slot, Owner owner, LeaseTerms terms) {
            Optional<SlotLease> r = super.acquire(ns, slot, owner, terms);
            System.out.println("DEBUG acquire " + slot + " by " + owner + " -> " + r);
            return r;
        }
        @Override public Optional<SlotLease> renew(SlotLease l, LeaseTerms terms) {
            Optional<SlotLease> r = super.renew(l, terms);
            System.out.println("DEBUG renew " + l + " -> " + r);
            return r;
        }
        @Override public boolean release(SlotLease l, long last) {
            boolean r = super.release(l, last);
            System.out.println("DEBUG release " + l + " last " + last + " -> " + r);
            return r;
        }
    }

    @Test
    void debug() {
        System.setProperty("cosid.sim.debug", "true");
        Simulation.Report report = Simulation.run(Long.getLong("seed", 9), Duration.ofSeconds(Long.getLong("secs", 10)), Logging::new,
                Simulation.Options.DEFAULT.withSnapshotReverts().withGuards(true, true));
        System.out.println("DEBUG violations " + report.violations());
    }
}
