package dev.cosid.lincheck;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;

/**
 * The budgets of the Lincheck tests in the test command, sized so that all of them together add about half a
 * minute on a 2-core machine; {@code -Dcosid.lincheck.scale=N} multiplies the scenarios tried, for a long run.
 */
public final class LincheckBudget {

    private static final int SCALE = Integer.getInteger("cosid.lincheck.scale", 1);

    private LincheckBudget() {
    }

    /**
     * Model checking: every scenario explored under many interleavings chosen by Lincheck's switch points.
     *
     * @param scenarios how many random scenarios
     * @param interleavings how many interleavings of each
     * @return the options, with small scenarios: two threads of three operations, two before and two after
     */
    public static ModelCheckingOptions modelChecking(int scenarios, int interleavings) {
        return new ModelCheckingOptions()
                // a loop is taken for a spin after this many rounds: the JDK's own loops the structures call (a
                // regular expression's matcher in the in-memory store runs 21) must pass, or a lone thread hangs
                .loopIterationsBeforeThreadSwitch(64)
                .iterations(scenarios * SCALE)
                .invocationsPerIteration(interleavings)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2);
    }

    /**
     * Stress: every scenario run many times on real threads.
     *
     * @param scenarios how many random scenarios
     * @param runs how many runs of each
     * @return the options, with scenarios of the same size as the model checking's
     */
    public static StressOptions stress(int scenarios, int runs) {
        return new StressOptions()
                .iterations(scenarios * SCALE)
                .invocationsPerIteration(runs)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2);
    }
}
