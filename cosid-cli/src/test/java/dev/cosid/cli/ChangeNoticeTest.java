package dev.cosid.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.testkit.servers.ServerProcess;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Existing users of a Sentinel URL or a multi-host PostgreSQL URL learn at start, in one line on stderr, what
 * changed and which option restores the old behaviour; other URLs and explicit settings print nothing.
 */
class ChangeNoticeTest {

    private static final String SENTINEL_NOTICE = "cosid: redis-sentinel now waits for 1 replica per write by "
            + "default; a failover needs a second replica to stay writable; allowRepeatedIdsOnPartition=true&"
            + "waitReplicas=0 restores the asynchronous behaviour, which can repeat ids under a partition";
    private static final String POSTGRES_NOTICE = "cosid: a PostgreSQL store URL with several hosts now requires a "
            + "primary that commits synchronously to a standby (synchronous_standby_names); "
            + "allowRepeatedIdsOnPartition=true restores the asynchronous behaviour, which can repeat ids under a "
            + "partition";

    private static List<String> errLines(String url) {
        return errLines("generate", "--count", "1", "--store", url);
    }

    private static List<String> errLines(String... args) {
        Cli run = Cli.run(args);
        assertEquals(1, run.status(), "nothing answers on a closed port: " + run.err());
        return run.err().lines().toList();
    }

    @Test
    void serveAndSegmentSayItToo() {
        int closed = ServerProcess.freePort();
        String sentinel = "redis-sentinel://127.0.0.1:" + closed + "#ids";
        String postgres = "jdbc:postgresql://127.0.0.1:" + closed + ",127.0.0.1:" + closed + "/x?user=postgres";
        assertEquals(SENTINEL_NOTICE, errLines("serve", "--port", "0", "--store", sentinel).get(0));
        assertEquals(POSTGRES_NOTICE, errLines("serve", "--port", "0", "--store", postgres).get(0));
        assertEquals(SENTINEL_NOTICE, errLines("segment", "orders", "--store", sentinel).get(0));
        assertEquals(POSTGRES_NOTICE, errLines("segment", "orders", "--store", postgres).get(0));
    }

    @Test
    void aSentinelUrlWithoutWaitReplicasSaysWhatChangedInOneLine() {
        int closed = ServerProcess.freePort();
        List<String> lines = errLines("redis-sentinel://127.0.0.1:" + closed + "#ids");
        assertEquals(SENTINEL_NOTICE, lines.get(0), lines.toString());
        assertEquals(1, lines.stream().filter(line -> line.contains("redis-sentinel now waits")).count());
        assertTrue(errLines("redis-sentinel://127.0.0.1:" + closed + "?waitReplicas=1#ids").stream()
                .noneMatch(line -> line.contains("now waits")), "an explicit waitReplicas needs no notice");
    }

    @Test
    void aMultiHostPostgresUrlSaysWhatChangedInOneLine() {
        int closed = ServerProcess.freePort();
        String hosts = "127.0.0.1:" + closed + ",127.0.0.1:" + closed;
        List<String> lines = errLines("jdbc:postgresql://" + hosts + "/x?user=postgres");
        assertEquals(POSTGRES_NOTICE, lines.get(0), lines.toString());
        assertTrue(errLines("jdbc:postgresql://" + hosts + "/x?user=postgres&allowRepeatedIdsOnPartition=true")
                .stream().noneMatch(line -> line.contains("now requires")), "the unsafe option needs no notice");
        assertTrue(errLines("jdbc:postgresql://127.0.0.1:" + closed + "/x?user=postgres").stream()
                .noneMatch(line -> line.contains("now requires")), "one host needs no notice");
    }
}
