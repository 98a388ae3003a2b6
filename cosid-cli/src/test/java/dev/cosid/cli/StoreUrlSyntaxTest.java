package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A malformed port or database number in a store URL of any scheme is bad input: every command that takes
 * {@code --store} refuses it in one line naming the part, with status 2, before it connects anywhere, and
 * never shows the password.
 */
class StoreUrlSyntaxTest {

    /** A refusal that tried to connect would wait out a connect bound of 5 s. */
    private static final long BEFORE_ANY_CONNECT_MILLIS = 3_000;

    private static Map<String, String> refusals() {
        Map<String, String> refusals = new LinkedHashMap<>();
        refusals.put("redis://:hunter2@127.0.0.1:notaport", "port 'notaport' of host 127.0.0.1 in Redis URL "
                + "'redis://:***@127.0.0.1:notaport' is not a number from 1 to 65535");
        refusals.put("redis://127.0.0.1:", "port '' of host 127.0.0.1 in Redis URL 'redis://127.0.0.1:' is not a "
                + "number from 1 to 65535");
        refusals.put("rediss://:hunter2@cache.example:99999", "port '99999' of host cache.example in Redis URL "
                + "'rediss://:***@cache.example:99999' is not a number from 1 to 65535");
        refusals.put("redis://:hunter2@127.0.0.1:6379/notadb", "database 'notadb' in Redis URL "
                + "'redis://:***@127.0.0.1:6379/notadb' is not a number");
        refusals.put("redis-sentinel://:hunter2@127.0.0.1:notaport#ids", "sentinel '127.0.0.1:notaport' in Redis "
                + "Sentinel URL 'redis-sentinel://:***@127.0.0.1:notaport#ids' is not host:port");
        refusals.put("redis-sentinel://127.0.0.1:26379/notadb#ids", "database 'notadb' in Redis Sentinel URL "
                + "'redis-sentinel://127.0.0.1:26379/notadb#ids' is not a number");
        refusals.put("redis-cluster://:hunter2@127.0.0.1:7000,127.0.0.1:notaport", "port 'notaport' of node "
                + "'127.0.0.1:notaport' in Redis Cluster URL 'redis-cluster://:***@127.0.0.1:7000,127.0.0.1:notaport' "
                + "is not a number from 1 to 65535");
        refusals.put("etcd://app:hunter2@127.0.0.1:notaport", "'127.0.0.1:notaport' in store URL "
                + "'etcd://app:***@127.0.0.1:notaport' is not HOST:PORT; use etcd://HOST:PORT[,HOST:PORT...][/PREFIX]");
        refusals.put("zookeeper://127.0.0.1:2181,127.0.0.1:notaport/ids", "port 'notaport' of host 127.0.0.1 in "
                + "store URL 'zookeeper://127.0.0.1:2181,127.0.0.1:notaport/ids' is not a number from 1 to 65535");
        refusals.put("jdbc:postgresql://127.0.0.1:5432,127.0.0.1:notaport/x?user=app&password=hunter2", "port "
                + "'notaport' of host 127.0.0.1 in store URL 'jdbc:postgresql://127.0.0.1:5432,127.0.0.1:notaport/x"
                + "?user=app&password=***' is not a number from 1 to 65535");
        refusals.put("jdbc:mariadb://app:hunter2@127.0.0.1:0/x", "port '0' of host 127.0.0.1 in store URL "
                + "'jdbc:mariadb://app:***@127.0.0.1:0/x' is not a number from 1 to 65535");
        refusals.put("jdbc:h2:tcp://127.0.0.1:notaport/x", "port 'notaport' of host 127.0.0.1 in store URL "
                + "'jdbc:h2:tcp://127.0.0.1:notaport/x' is not a number from 1 to 65535");
        return refusals;
    }

    @Test
    void aMalformedPortOrDatabaseIsOneLineNamingItWithStatusTwo() {
        Clock clock = Clock.system();
        // once untimed: the first refusal of a JVM loads the command line's classes, which took 5.7 s with two
        // builds on the machine; a refusal that connected first would wait out the 5 s connect bound every time
        Cli.run("generate", "--store", refusals().keySet().iterator().next());
        for (Map.Entry<String, String> refusal : refusals().entrySet()) {
            String url = refusal.getKey();
            for (List<String> command : List.of(List.of("generate"), List.of("segment", "orders"), List.of("leases"),
                    List.of("segments"), List.of("serve", "--port", "0"))) {
                List<String> args = new java.util.ArrayList<>(command);
                args.addAll(List.of("--store", url));
                long started = clock.monotonicNanos();
                Cli run = Cli.run(args.toArray(String[]::new));
                long millis = (clock.monotonicNanos() - started) / 1_000_000;
                String name = "cosid " + command.get(0);
                assertEquals(name + ": " + refusal.getValue() + "\n", run.err(), args.toString());
                assertEquals(2, run.status(), args.toString());
                assertEquals("", run.out(), args.toString());
                assertFalse(run.err().contains("hunter2"), run.err());
                assertTrue(millis < BEFORE_ANY_CONNECT_MILLIS, args + " took " + millis + " ms");
            }
        }
    }

    @Test
    void migrateChecksItsSourcesAndTargetTheSameWayBeforeReadingAnything() {
        Map<List<String>, String> refusals = new LinkedHashMap<>();
        refusals.put(List.of("--from-redis", "redis://:hunter2@127.0.0.1:notaport", "--to-store", "memory:"),
                "port 'notaport' of host 127.0.0.1 in Redis URL 'redis://:***@127.0.0.1:notaport' is not a number "
                        + "from 1 to 65535");
        refusals.put(List.of("--from-cosid-segments", "redis://127.0.0.1:6379/shop", "--to-store", "memory:"),
                "database 'shop' in Redis URL 'redis://127.0.0.1:6379/shop' is not a number");
        refusals.put(List.of("--from-zookeeper", "zookeeper://127.0.0.1:notaport", "--to-store", "memory:"),
                "port 'notaport' of host 127.0.0.1 in store URL 'zookeeper://127.0.0.1:notaport' is not a number "
                        + "from 1 to 65535");
        refusals.put(List.of("--from-jdbc", "jdbc:mysql://127.0.0.1:notaport/x?password=hunter2", "--to-store",
                "memory:"), "port 'notaport' of host 127.0.0.1 in store URL "
                + "'jdbc:mysql://127.0.0.1:notaport/x?password=***' is not a number from 1 to 65535");
        refusals.put(List.of("--from-leaf", "jdbc:postgresql://127.0.0.1:5432/leaf", "--to-store",
                "redis://127.0.0.1:"), "port '' of host 127.0.0.1 in Redis URL 'redis://127.0.0.1:' is not a "
                + "number from 1 to 65535");
        refusals.forEach((options, refusal) -> {
            List<String> args = new java.util.ArrayList<>(List.of("migrate"));
            args.addAll(options);
            Cli run = Cli.run(args.toArray(String[]::new));
            assertEquals("cosid migrate: " + refusal + "\n", run.err(), args.toString());
            assertEquals(2, run.status(), args.toString());
            assertEquals("", run.out(), args.toString());
        });
    }

    @Test
    void aPortOmittedIsTheSchemesDefaultAndPassesTheCheck() {
        // no server listens here: the open gets as far as connecting, which is a failure (1), not bad input (2)
        Cli zookeeper = Cli.run("leases", "--store", "zookeeper://127.0.0.1.invalid/ids");
        assertEquals(1, zookeeper.status(), zookeeper.err());
        assertTrue(zookeeper.err().startsWith("cosid leases: cannot reach zookeeper://127.0.0.1.invalid/ids"),
                zookeeper.err());
    }
}
