package dev.cosid.lincheck;

import java.util.List;

/**
 * A sequential specification of an id generator, for {@link BatchLinearizabilityVerifier}: one call at a
 * time, each result exact.
 *
 * <p>A batch ({@code nextIds(n)}) is not one atomic step in the structures checked here: it is a sequence of
 * draws, each atomic (one add on a range's cursor, one compare-and-set of the generator's word), and another
 * caller may draw between two of them. So the specification answers a batch one draw at a time through
 * {@link #draw(int)}, and a refused batch may have drawn ids before it was refused: those ids are never
 * issued to anyone.
 *
 * <p>Results are plain values compared with {@code equals}: an id is a {@code Long}, a batch a
 * {@code List<Long>}, a refusal the string {@code "refused REASON"}, a void operation {@code null}; where
 * the specification allows several results, {@link #either(Object...)}.
 */
public interface IdSpecification {

    /** Returns an independent copy of this state. */
    IdSpecification copy();

    /**
     * Applies one whole operation other than a batch.
     *
     * @param operation the test's method name
     * @param arguments its arguments
     * @return its result
     */
    Object apply(String operation, List<Object> arguments);

    /**
     * Applies the next atomic draw of a batch that still wants {@code wanted} ids.
     *
     * @param wanted how many ids the batch still wants, at least 1
     * @return the ids of this draw, in increasing order, at most {@code wanted} of them; or a refusal
     */
    Object draw(int wanted);

    /** Returns whether the named operation is a batch, answered draw by draw. */
    default boolean isBatch(String operation) {
        return operation.equals("nextIds");
    }

    /** Returns a key that is equal for equal states, so the search visits each state once. */
    String state();

    /**
     * Returns a result that matches any of the given ones: where the specification leaves a choice open,
     * such as which of two reasons a refusal names when both hold. The state after it must not depend on the
     * choice.
     *
     * @param results the results allowed
     * @return a result matching each of them
     */
    static Object either(Object... results) {
        return new Either(List.of(results));
    }

    /** A result that matches any of several. */
    record Either(List<Object> results) {
        /** Returns whether the observed result is one of these. */
        boolean matches(Object observed) {
            return results.contains(observed);
        }
    }
}
