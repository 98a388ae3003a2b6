package dev.cosid.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Opening stores by URL with only cosid-core on the class path, and masking URLs for messages. */
class LeaseStoresTest {

    private static String refusal(String url) {
        return assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(url)).getMessage();
    }

    @Test
    void aUrlOfAStoreModuleThatIsMissingNamesTheModuleToAdd() {
        assertEquals("store URL 'sqlite:cosid.db' needs the module dev.cosid:cosid-jdbc, which is not on the class "
                + "path: add it beside dev.cosid:cosid-core", refusal("sqlite:cosid.db"));
        assertEquals("store URL 'jdbc:postgresql://db/app?user=app&password=***' needs the module dev.cosid:cosid-jdbc,"
                + " which is not on the class path: add it beside dev.cosid:cosid-core",
                refusal("jdbc:postgresql://db/app?user=app&password=SECRET123"));
        assertEquals("store URL 'redis://:***@cache:6379' needs the module dev.cosid:cosid-redis, which is not on the "
                + "class path: add it beside dev.cosid:cosid-core", refusal("redis://:SECRET123@cache:6379"));
        assertEquals("store URL 'redis-sentinel://:***@s1:26379#primary' needs the module dev.cosid:cosid-redis, "
                + "which is not on the class path: add it beside dev.cosid:cosid-core",
                refusal("redis-sentinel://:SECRET123@s1:26379#primary"));
        assertEquals("store URL 'zookeeper://zk:2181/ids' needs the module dev.cosid:cosid-zookeeper, which is not "
                + "on the class path: add it beside dev.cosid:cosid-core", refusal("zookeeper://zk:2181/ids"));
        assertEquals("store URL 'etcd://u:***@etcd1:2379,etcd2:2379/ids' needs the module dev.cosid:cosid-etcd, which "
                + "is not on the class path: add it beside dev.cosid:cosid-core",
                refusal("etcd://u:SECRET123@etcd1:2379,etcd2:2379/ids"));
    }

    @Test
    void anUnknownSchemeIsShownByItsSchemeOnly() {
        assertEquals("unknown store URL scheme 'jdbc:oracle:'; supported: memory:",
                refusal("jdbc:oracle:thin:u/SECRET123@db:1521/x"));
        assertEquals("unknown store URL scheme 'mongodb:'; supported: memory:", refusal("mongodb://u:SECRET123@db/ids"));
        assertEquals("store URL 'cosid.db' has no scheme; supported: memory: (a SQLite file is sqlite:PATH)",
                refusal("cosid.db"));
        assertEquals("store URL '***' has no scheme; supported: memory: (a SQLite file is sqlite:PATH)",
                refusal("u/SECRET123@db"));
        assertEquals("store URL is empty", refusal(" "));
        assertInstanceOf(InMemoryLeaseStore.class, LeaseStores.open("memory:"));
    }

    @Test
    void redactMasksEveryPasswordFormOfTheKnownSyntaxes() {
        assertEquals("jdbc:mariadb://u:***@127.0.0.1:1/x", LeaseStores.redact("jdbc:mariadb://u:SECRET123@127.0.0.1:1/x"));
        assertEquals("jdbc:mariadb://127.0.0.1:1/x?user=u&pwd=***",
                LeaseStores.redact("jdbc:mariadb://127.0.0.1:1/x?user=u&pwd=SECRET123"));
        assertEquals("jdbc:postgresql://h/db?password=***&user=u",
                LeaseStores.redact("jdbc:postgresql://h/db?password=SECRET123&user=u"));
        assertEquals("jdbc:h2:tcp://h/db;USER=sa;PASSWORD=***", LeaseStores.redact("jdbc:h2:tcp://h/db;USER=sa;PASSWORD=SECRET123"));
        assertEquals("redis://***@h:6379", LeaseStores.redact("redis://SECRET123@h:6379"));
        assertEquals("rediss://app:***@h:6379/0?waitReplicas=1", LeaseStores.redact("rediss://app:SEC@RET123@h:6379/0?waitReplicas=1"));
        assertEquals("zookeeper://u:***@127.0.0.1:2181/ids", LeaseStores.redact("zookeeper://u:SECRET123@127.0.0.1:2181/ids"));
        assertEquals("redis-sentinel://:***@s1:26379,s2:26379/0#primary",
                LeaseStores.redact("redis-sentinel://:SECRET123@s1:26379,s2:26379/0#primary"));
        assertEquals("etcd://u:***@127.0.0.1:2379,127.0.0.1:2380/ids",
                LeaseStores.redact("etcd://u:SECRET123@127.0.0.1:2379,127.0.0.1:2380/ids"));
        assertEquals("sqlite:/var/lib/cosid/cosid.db", LeaseStores.redact("sqlite:/var/lib/cosid/cosid.db"));
        assertEquals("jdbc:oracle:...", LeaseStores.redact("jdbc:oracle:thin:u/SECRET123@db:1521/x"));
        assertEquals("cannot reach redis://:***@h:1 or jdbc:postgresql://h/db?password=*** within 5000 ms",
                LeaseStores.redact("cannot reach redis://:SECRET123@h:1 or jdbc:postgresql://h/db?password=SECRET123 "
                        + "within 5000 ms"));
    }

    @Test
    void maskRemovesTheSecretsWhereverADriverEchoesThem() {
        String url = "jdbc:mariadb://u:SECRET123@127.0.0.1:1/x?pwd=p%40ss-word";
        assertEquals("Incorrect port value : ***@127.0.0.1 in jdbc:mariadb://u:***@127.0.0.1:1/x?pwd=***; login *** failed",
                LeaseStores.mask("Incorrect port value : SECRET123@127.0.0.1 in " + url + "; login p@ss-word failed", url));
        String oracle = "jdbc:oracle:thin:u/SECRET123@db:1521/x";
        assertEquals("No suitable driver found for jdbc:oracle:...; at ***",
                LeaseStores.mask("No suitable driver found for " + oracle + "; at thin:u/SECRET123@db:1521/x", oracle));
        assertEquals(List.of("SECRET123"), LeaseStores.secrets("redis://:SECRET123@h:1"));
        assertEquals(List.of(), LeaseStores.secrets("redis://:ab@h:1"), "two characters are too short to search for");
        assertFalse(LeaseStores.mask("id 123456", "redis://:ab@h:1").contains("***"));
    }
}
