package dev.cosid.simulation;

import dev.cosid.coordination.CoordinationEntry;
import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Lease;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One member's view of the shared cluster. While cut off every call fails before it reaches the cluster;
 * while flaky a call is lost before it applies, or applies with its answer lost, each with a probability.
 * An answer lost is lost whatever it was, a fence included: the member sees a failed call, not the fence.
 */
final class SimLink implements CoordinationTransport {

    private final CoordinationTransport cluster;
    private final Random random;
    private final long[] counts;
    private boolean cutOff;
    private double lossBefore;
    private double lossAfter;

    /** Indexes into the counts this link adds to. */
    static final int LOST_BEFORE = 0;
    static final int ANSWER_LOST = 1;
    static final int REFUSED_CUT_OFF = 2;

    SimLink(CoordinationTransport cluster, Random random, long[] counts) {
        this.cluster = cluster;
        this.random = random;
        this.counts = counts;
    }

    /** Cuts the member off (every call fails, none applies) or joins it again. */
    void cutOff(boolean cut) {
        this.cutOff = cut;
    }

    /** Makes calls fail: lost before they apply with one probability, applied with the answer lost with another. */
    void flaky(double lostBefore, double answerLost) {
        this.lossBefore = lostBefore;
        this.lossAfter = answerLost;
    }

    private <T> T call(String what, Supplier<T> call) {
        if (cutOff) {
            counts[REFUSED_CUT_OFF]++;
            throw new CoordinationException("cannot reach the cluster for " + what + ": cut off");
        }
        if (lossBefore > 0 || lossAfter > 0) {
            double draw = random.nextDouble();
            if (draw < lossBefore) {
                counts[LOST_BEFORE]++;
                throw new CoordinationException(what + " timed out before it reached the cluster");
            }
            if (draw < lossBefore + lossAfter) {
                counts[ANSWER_LOST]++;
                try {
                    call.get();
                } catch (CoordinationException applied) {
                    // the cluster answered, a fence included; the answer is lost on its way back
                }
                throw new CoordinationException(what + " timed out after the cluster applied it");
            }
        }
        return call.get();
    }

    private void run(String what, Runnable call) {
        call(what, () -> {
            call.run();
            return null;
        });
    }

    @Override
    public FencingToken acquireEpoch(Role role) {
        return call("acquireEpoch", () -> cluster.acquireEpoch(role));
    }

    @Override
    public List<CoordinationEntry> readRoleRecords(Role role) {
        return call("readRoleRecords", () -> cluster.readRoleRecords(role));
    }

    @Override
    public void register(Role role, MemberId member, long atMillis) {
        run("register", () -> cluster.register(role, member, atMillis));
    }

    @Override
    public void deregister(Role role, MemberId member) {
        run("deregister", () -> cluster.deregister(role, member));
    }

    @Override
    public Lease writeLease(Role role, FencingToken token, Lease lease) {
        return call("writeLease", () -> cluster.writeLease(role, token, lease));
    }

    @Override
    public void clearLease(Role role, FencingToken token) {
        run("clearLease", () -> cluster.clearLease(role, token));
    }

    @Override
    public Optional<FencingToken> describe(Role role) {
        return call("describe", () -> cluster.describe(role));
    }

    @Override
    public Set<Role> roles() {
        return call("roles", cluster::roles);
    }

    @Override
    public void close() {
        // the shared cluster outlives every member's view of it
    }
}
