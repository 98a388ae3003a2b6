package dev.cosid.coordination;

/**
 * The work a member does while it leads a role. The {@link Elector} runs it on a thread of its own when
 * the member is elected and interrupts that thread when the leadership ends. When the work returns or
 * throws, the elector gives the role up and campaigns again, after the standbys have had a retry interval
 * plus one stagger to take it.
 *
 * <p>Writes that must never land after a successor's go through a fenced path with
 * {@link Leadership#token()}: the role's Kafka transactions, the JDBC fence, or any resource that compares
 * tokens. Everything else the work does is stopped in time only while the process runs: see
 * {@code docs/leadership.md}.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * LeaderWork work = leadership -> {
 *     while (!Thread.currentThread().isInterrupted()) {
 *         publishBatch(leadership.token());
 *         Thread.sleep(1_000);
 *     }
 * };
 * }</pre>
 */
@FunctionalInterface
public interface LeaderWork {

    /**
     * Leads until done or interrupted.
     *
     * @param leadership the live leadership
     * @throws Exception a failure, which ends the leadership
     */
    void lead(Leadership leadership) throws Exception;
}
