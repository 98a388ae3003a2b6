package dev.cosid.spring.boot.leadership;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a method only on the instance that leads a role; on every other instance a call is skipped (logged at
 * DEBUG) and returns at once. Put it beside {@code @Scheduled} for a job that runs on one instance at a time; the
 * role needs no configuration (it takes the {@code cosid.leadership.*} defaults) unless
 * {@code cosid.leadership.roles.NAME.*} changes them.
 *
 * <p>Inside the method, {@link CosIdLeadership#current()} returns the leadership with its token. When the
 * leadership ends (a successor's newer epoch, renewals failing, shutdown) the method's thread is interrupted and the
 * role is given back only after the method has returned, at most the revoke margin later. That stops the method's
 * work in time while the process runs; writes that must never land after a successor's go through
 * {@link LeaderKafka} or {@link LeaderJdbcFence}, which the brokers or the fence table refuse whatever the clocks
 * and pauses do.
 *
 * <p>The method must return {@code void} (a skipped call has no result) and must be public or protected, not
 * final and not static, since it is called through a proxy; the start fails otherwise. Where ShedLock's
 * {@code @SchedulerLock} only keeps two runs from starting together, a deposed leader here is interrupted and its
 * fenced writes are refused.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly("nightly-report")
 * public void report() {
 *     reports.publish(CosIdLeadership.current().token());
 * }
 * }</pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {

    /**
     * The role: 1 to 128 characters of {@code A-Z a-z 0-9 . _ -}.
     *
     * @return the role's name
     */
    String value();
}
