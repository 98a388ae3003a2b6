package dev.cosid.lincheck;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionResult;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.kotlinx.lincheck.execution.ResultWithClock;
import org.jetbrains.kotlinx.lincheck.util.LincheckResult;
import org.jetbrains.kotlinx.lincheck.util.ValueResult;
import org.jetbrains.kotlinx.lincheck.util.VoidResult;
import org.jetbrains.lincheck.datastructures.verifier.Verifier;

/**
 * Lincheck's linearizability check for an {@link IdSpecification}, where a batch is a sequence of atomic
 * draws rather than one step.
 *
 * <p>An execution passes when its operations can be put in one order, consistent with real time (an
 * operation that finished before another began comes first), in which the specification, applied one
 * step at a time, returns every result that was observed. A single operation is one step; a batch is one
 * step per draw, each draw placed anywhere between the batch's start and its end and in the batch's own
 * order; a refused batch takes any number of draws that do not complete it, then its refusal. So with a
 * specification that hands out increasing ids, a passing execution has its ids strictly increasing in the
 * order of the draws, never repeated, and each id larger than every id returned before its call began.
 *
 * <p>The search is Wing and Gong's: depth first over the operations whose predecessors are done, with the
 * states already seen remembered. Scenarios are a handful of operations, so it takes microseconds.
 */
public final class BatchLinearizabilityVerifier implements Verifier {

    private final Class<?> specification;

    /**
     * Created by Lincheck with the test's sequential specification.
     *
     * @param specification a class implementing {@link IdSpecification} with a public no-argument constructor
     */
    public BatchLinearizabilityVerifier(Class<?> specification) {
        if (!IdSpecification.class.isAssignableFrom(specification)) {
            throw new IllegalArgumentException(specification + " does not implement " + IdSpecification.class);
        }
        this.specification = specification;
    }

    @Override
    public boolean verifyResults(ExecutionScenario scenario, ExecutionResult result) {
        List<Step> ops = operations(scenario, result);
        IdSpecification initial;
        try {
            initial = (IdSpecification) specification.getConstructor().newInstance();
        } catch (InstantiationException | IllegalAccessException | NoSuchMethodException
                 | InvocationTargetException e) {
            throw new IllegalStateException("cannot create " + specification, e);
        }
        int[] progress = new int[ops.size()];
        Arrays.fill(progress, NOT_STARTED);
        return search(ops, initial, progress, new HashSet<>());
    }

    private static final int NOT_STARTED = -1;
    private static final int DONE = Integer.MAX_VALUE;

    /** One operation of the execution and the operations that finished before it began. */
    private static final class Step {
        final String name;
        final List<Object> arguments;
        final Object result;
        final List<Integer> predecessors = new ArrayList<>();

        Step(Actor actor, LincheckResult result) {
            this.name = actor.getMethod().getName();
            this.arguments = actor.getArguments();
            if (result instanceof ValueResult) {
                this.result = ((ValueResult) result).getValue();
            } else if (result instanceof VoidResult) {
                this.result = null;
            } else {
                // an exception or a suspension: no specification here returns one, so it never matches
                this.result = result;
            }
        }
    }

    private static List<Step> operations(ExecutionScenario scenario, ExecutionResult result) {
        List<Step> ops = new ArrayList<>();
        List<Integer> before = new ArrayList<>();
        for (int i = 0; i < scenario.getInitExecution().size(); i++) {
            Step step = new Step(scenario.getInitExecution().get(i), result.getInitResults().get(i));
            step.predecessors.addAll(before);
            before.add(ops.size());
            ops.add(step);
        }
        List<List<Actor>> threads = scenario.getParallelExecution();
        List<List<ResultWithClock>> results = result.getParallelResultsWithClock();
        int[][] index = new int[threads.size()][];
        for (int t = 0; t < threads.size(); t++) {
            index[t] = new int[threads.get(t).size()];
            for (int i = 0; i < threads.get(t).size(); i++) {
                index[t][i] = ops.size();
                ops.add(new Step(threads.get(t).get(i), results.get(t).get(i).getResult()));
            }
        }
        List<Integer> parallel = new ArrayList<>();
        for (int t = 0; t < threads.size(); t++) {
            for (int i = 0; i < threads.get(t).size(); i++) {
                Step step = ops.get(index[t][i]);
                step.predecessors.addAll(before);
                for (int u = 0; u < threads.size(); u++) {
                    // the clock counts the operations of thread u that had finished when this one began
                    int finished = u == t ? i : results.get(t).get(i).getClockOnStart().get(u);
                    for (int j = 0; j < finished; j++) {
                        step.predecessors.add(index[u][j]);
                    }
                }
                parallel.add(index[t][i]);
            }
        }
        before.addAll(parallel);
        for (int i = 0; i < scenario.getPostExecution().size(); i++) {
            Step step = new Step(scenario.getPostExecution().get(i), result.getPostResults().get(i));
            step.predecessors.addAll(before);
            before.add(ops.size());
            ops.add(step);
        }
        return ops;
    }

    private static boolean search(List<Step> ops, IdSpecification state, int[] progress, Set<String> seen) {
        if (!seen.add(Arrays.toString(progress) + state.state())) {
            return false;
        }
        boolean all = true;
        for (int o = 0; o < ops.size(); o++) {
            if (progress[o] == DONE) {
                continue;
            }
            all = false;
            Step op = ops.get(o);
            if (!ready(op, progress)) {
                continue;
            }
            IdSpecification next = state.copy();
            int before = progress[o];
            if (!next.isBatch(op.name)) {
                if (!matches(next.apply(op.name, op.arguments), op.result)) {
                    continue;
                }
                progress[o] = DONE;
            } else {
                int after = drawn(op, before == NOT_STARTED ? 0 : before, next.draw(wanted(op, before)));
                if (after == NOT_STARTED) {
                    continue;
                }
                progress[o] = after;
            }
            if (search(ops, next, progress, seen)) {
                return true;
            }
            progress[o] = before;
        }
        return all;
    }

    private static boolean matches(Object expected, Object observed) {
        if (expected instanceof IdSpecification.Either) {
            return ((IdSpecification.Either) expected).matches(observed);
        }
        return Objects.equals(expected, observed);
    }

    private static boolean ready(Step op, int[] progress) {
        for (int p : op.predecessors) {
            if (progress[p] != DONE) {
                return false;
            }
        }
        return true;
    }

    private static int wanted(Step op, int progress) {
        return ((Integer) op.arguments.get(0)) - (progress == NOT_STARTED ? 0 : progress);
    }

    /**
     * Matches one draw of a batch against its observed result.
     *
     * @return the ids of the batch accounted for after the draw, DONE, or NOT_STARTED when it cannot match
     */
    private static int drawn(Step op, int matched, Object draw) {
        int count = (Integer) op.arguments.get(0);
        if (!(draw instanceof List)) {
            // the specification refused: the batch must have been refused with the same reason
            return matches(draw, op.result) ? DONE : NOT_STARTED;
        }
        List<?> ids = (List<?>) draw;
        if (ids.isEmpty() || matched + ids.size() > count) {
            return NOT_STARTED;
        }
        if (op.result instanceof List) {
            List<?> observed = (List<?>) op.result;
            if (!observed.subList(matched, matched + ids.size()).equals(ids)) {
                return NOT_STARTED;
            }
            return matched + ids.size() == count ? DONE : matched + ids.size();
        }
        // a refused batch drew these ids and lost them; it cannot have drawn all it wanted
        return matched + ids.size() < count ? matched + ids.size() : NOT_STARTED;
    }
}
