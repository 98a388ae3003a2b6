package dev.cosid.shedlock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.FencingToken;
import dev.cosid.coordination.InMemoryTransport;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock.InterceptMode;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The token reaches the {@code @SchedulerLock} method in both of shedlock-spring's modes: the method proxy (the
 * default) and the scheduler proxy, where ShedLock wraps the task the scheduler runs. Each run sees the token its
 * own lock minted, which the store then names as current.
 */
class SpringInterceptModesTest {

    static final InMemoryTransport STORE = new InMemoryTransport();

    /**
     * The job: records the token each run sees, and the store's current token at that moment; read through methods,
     * since the method proxy is a subclass whose own fields stay empty.
     */
    public static class Job {
        private final List<Optional<FencingToken>> seen = new ArrayList<>();
        private final List<Optional<FencingToken>> current = new ArrayList<>();

        @Scheduled(fixedDelay = 20)
        @SchedulerLock(name = "mode-job", lockAtMostFor = "1m")
        public void run() {
            synchronized (seen) {
                seen.add(CosIdLockProvider.currentToken());
                current.add(STORE.describe(Role.of("mode-job")));
            }
        }

        public List<List<Optional<FencingToken>>> runs() {
            synchronized (seen) {
                return List.of(new ArrayList<>(seen), new ArrayList<>(current));
            }
        }
    }

    abstract static class Common {
        @Bean
        LockProvider lockProvider() {
            return new CosIdLockProvider(STORE, "node-1");
        }

        @Bean
        Job job() {
            return new Job();
        }

        @Bean
        TaskScheduler taskScheduler() {
            return new ThreadPoolTaskScheduler();
        }
    }

    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(interceptMode = InterceptMode.PROXY_METHOD, defaultLockAtMostFor = "1m")
    static class MethodProxy extends Common {
    }

    @Configuration
    @EnableScheduling
    @SuppressWarnings("removal") // ShedLock 7 keeps the scheduler proxy, deprecated; applications still use it
    @EnableSchedulerLock(interceptMode = InterceptMode.PROXY_SCHEDULER, defaultLockAtMostFor = "1m")
    static class SchedulerProxy extends Common {
    }

    private static void everyRunSeesTheTokenItsLockMinted(Class<?> configuration) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(configuration)) {
            Job job = context.getBean(Job.class);
            Await.until(() -> job.runs().get(0).size() >= 3, Duration.ofSeconds(20), "three runs");
            List<List<Optional<FencingToken>>> runs = job.runs();
            FencingToken last = FencingToken.NO_EPOCH;
            for (int i = 0; i < runs.get(0).size(); i++) {
                FencingToken token = runs.get(0).get(i).orElseThrow(() -> new AssertionError("a run without a token"));
                assertEquals(Optional.of(token), runs.get(1).get(i), "the store's current token");
                assertTrue(token.supersedes(last), runs.get(0).toString());
                last = token;
            }
        }
        assertEquals(Optional.empty(), CosIdLockProvider.currentToken());
    }

    @Test
    void withTheMethodProxyEveryRunSeesItsOwnToken() {
        everyRunSeesTheTokenItsLockMinted(MethodProxy.class);
    }

    @Test
    void withTheSchedulerProxyEveryRunSeesItsOwnToken() {
        everyRunSeesTheTokenItsLockMinted(SchedulerProxy.class);
    }
}
