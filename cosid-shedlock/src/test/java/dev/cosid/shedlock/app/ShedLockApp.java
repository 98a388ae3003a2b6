package dev.cosid.shedlock.app;

import dev.cosid.coordination.FencedException;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.JdbcFence;
import dev.cosid.coordination.Role;
import dev.cosid.shedlock.CosIdLockProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A Spring Boot 4 application whose {@code @Scheduled @SchedulerLock} job writes numbered rows to PostgreSQL, run as
 * a child process by {@code ShedLockAppsOnPostgresTest}. {@code app.provider=cosid} takes the lock with
 * {@link CosIdLockProvider} and writes through the JDBC fence with the lock's token; {@code app.provider=jdbc} takes
 * it with ShedLock's own {@link JdbcTemplateLockProvider} (on the database's time) and writes a plain insert. Each
 * row carries the lock's generation: the token's fence, or ShedLock's {@code locked_at} in milliseconds.
 *
 * <p>When the file {@code app.dir/MEMBER.freeze} exists, the next run prints {@code about to write} once it holds
 * the lock and has read what it writes, and waits for {@code app.dir/MEMBER.go} before it writes: the test freezes
 * the process (SIGSTOP) at that point, so the write is on its way when the process wakes up. Lines for the test
 * start with {@code app: } on standard output.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "2s")
public class ShedLockApp {

    @Autowired
    private DataSource dataSource;
    @Value("${app.member}")
    private String member;
    @Value("${app.lock}")
    private String lock;
    @Value("${app.table}")
    private String table;
    @Value("${app.dir}")
    private Path dir;
    @Value("${app.provider}")
    private String provider;
    private int seq;

    public static void main(String[] args) {
        SpringApplication.run(ShedLockApp.class, args);
    }

    @Bean
    LockProvider lockProvider(@Value("${app.provider}") String provider, @Value("${app.store:}") String store,
                              @Value("${app.member}") String member, DataSource dataSource) {
        if (provider.equals("cosid")) {
            return new CosIdLockProvider(store, member); // the one bean that changes
        }
        return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(dataSource)).usingDbTime().build());
    }

    @EventListener(ApplicationReadyEvent.class)
    public void ready() {
        say("started " + member);
    }

    private static void say(String line) {
        System.out.println("app: " + line);
        System.out.flush();
    }

    @Scheduled(fixedDelay = 100)
    @SchedulerLock(name = "${app.lock}")
    public void tick() throws Exception {
        int n = seq++;
        try (Connection c = dataSource.getConnection()) {
            long run = startRun(c, n);
            long generation;
            FencingToken token = null;
            if (provider.equals("cosid")) {
                token = CosIdLockProvider.currentToken().orElseThrow(); // the lock this run holds
                generation = token.producerId();
            } else {
                generation = lockedAt(c);
            }
            // the point past which the run counts on its lock: it writes what it read above
            Path freeze = dir.resolve(member + ".freeze");
            if (Files.exists(freeze)) {
                Files.delete(freeze);
                say("about to write " + n + " " + generation);
                Path go = dir.resolve(member + ".go");
                while (!Files.exists(go)) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
                Files.delete(go);
            }
            try {
                write(c, token, n, generation);
                say("wrote " + n + " " + generation);
            } catch (FencedException e) {
                say("refused " + n + " " + generation + ": " + e.getMessage());
            }
            endRun(c, run);
        }
    }

    private void write(Connection c, FencingToken token, int n, long generation) throws SQLException {
        c.setAutoCommit(false);
        try {
            if (token != null) {
                JdbcFence.standard().check(c, Role.of(lock), token); // first in the transaction
            }
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table
                    + " (member, seq, generation) VALUES (?, ?, ?)")) {
                insert.setString(1, member);
                insert.setInt(2, n);
                insert.setLong(3, generation);
                insert.executeUpdate();
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** ShedLock's own record of when this lock was taken, by the database's clock. */
    private long lockedAt(Connection c) throws SQLException {
        try (PreparedStatement select = c.prepareStatement("SELECT CAST(EXTRACT(EPOCH FROM locked_at) * 1000 AS "
                + "BIGINT) FROM shedlock WHERE name = ?")) {
            select.setString(1, lock);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** Records the run's start by the database's clock, one clock for every instance. */
    private long startRun(Connection c, int n) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + table + "_runs (member, seq, started) "
                + "VALUES (?, ?, clock_timestamp()) RETURNING id")) {
            insert.setString(1, member);
            insert.setInt(2, n);
            try (ResultSet row = insert.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private void endRun(Connection c, long run) throws SQLException {
        try (PreparedStatement update = c.prepareStatement("UPDATE " + table + "_runs SET ended = clock_timestamp() "
                + "WHERE id = ?")) {
            update.setLong(1, run);
            update.executeUpdate();
        }
    }
}
