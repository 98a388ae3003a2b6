package dev.cosid.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.Role;
import dev.cosid.shedlock.CosIdLockProvider;
import dev.cosid.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The ShedLock provider in a Spring Boot 3.5 application (Spring 6.2, shedlock-spring 7): the
 * {@code @Scheduled @SchedulerLock} job runs under {@link CosIdLockProvider} on a SQLite store, each run with a
 * token of its own that the store names as current, and closing the context closes the provider.
 */
class Boot3ShedLockTest {

    @TempDir
    Path dir;

    /** The job, recording the token each run sees. */
    public static class Job {
        private final List<Optional<FencingToken>> seen = new ArrayList<>();

        @Scheduled(fixedDelay = 50)
        @SchedulerLock(name = "boot3-job", lockAtMostFor = "1m")
        public void run() {
            synchronized (seen) {
                seen.add(CosIdLockProvider.currentToken());
            }
        }

        public List<Optional<FencingToken>> seen() {
            synchronized (seen) {
                return new ArrayList<>(seen);
            }
        }
    }

    @SpringBootConfiguration
    @ImportAutoConfiguration(TaskSchedulingAutoConfiguration.class)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "1m")
    static class App {
        @Bean
        LockProvider lockProvider(@Value("${store}") String store) {
            return new CosIdLockProvider(store, "boot3");
        }

        @Bean
        Job job() {
            return new Job();
        }
    }

    @Test
    void theJobRunsUnderTheProviderWithATokenOfItsOwnOnSpringBoot35() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        String store = "sqlite:" + dir.resolve("locks.db");
        List<Optional<FencingToken>> seen;
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).run("--store=" + store)) {
            Job job = app.getBean(Job.class);
            Await.until(() -> job.seen().size() >= 3, Duration.ofSeconds(30), "three runs");
            seen = job.seen();
        }
        FencingToken last = FencingToken.NO_EPOCH;
        for (Optional<FencingToken> token : seen) {
            assertTrue(token.isPresent() && token.get().supersedes(last), seen.toString());
            last = token.get();
        }
        try (CoordinationTransport transport = CoordinationTransports.open(store)) {
            // a run may have started between the last look and the close: the store's token is the last one seen or later
            FencingToken current = transport.describe(Role.of("boot3-job")).orElseThrow();
            assertFalse(last.supersedes(current), last + " seen, the store's is " + current);
        }
    }
}
