package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.testkit.servers.ServerProcess;
import org.junit.jupiter.api.Test;

/** Malformed Redis Sentinel URLs get one clear line that hides the password. */
class RedisSentinelUrlTest {

    private static String refusal(String url) {
        return assertThrows(IllegalArgumentException.class, () -> LeaseStores.open(url)).getMessage();
    }

    @Test
    void aUrlWithoutThePrimaryNameSaysSo() {
        assertEquals("Redis Sentinel URL 'redis-sentinel://:***@127.0.0.1:26379' names no primary: end it with "
                + "#NAME, the name the sentinels monitor (sentinel monitor NAME ...)",
                refusal("redis-sentinel://:SECRET123@127.0.0.1:26379"));
        assertEquals("Redis Sentinel URL 'redis-sentinel://127.0.0.1:26379/0?waitReplicas=1#' names no primary: end "
                + "it with #NAME, the name the sentinels monitor (sentinel monitor NAME ...)",
                refusal("redis-sentinel://127.0.0.1:26379/0?waitReplicas=1#"));
    }

    @Test
    void aBadSentinelAddressOrDatabaseIsNamed() {
        assertEquals("port '99999' of sentinel s2 in Redis Sentinel URL 'redis-sentinel://:***@s1:26379,s2:99999#ids'"
                + " is not a number from 1 to 65535", refusal("redis-sentinel://:SECRET123@s1:26379,s2:99999#ids"));
        assertEquals("sentinel '' in Redis Sentinel URL 'redis-sentinel://s1:26379,#ids' is not host:port",
                refusal("redis-sentinel://s1:26379,#ids"));
        assertEquals("sentinel 's1:port' in Redis Sentinel URL 'redis-sentinel://s1:port#ids' is not host:port",
                refusal("redis-sentinel://s1:port#ids"));
        assertEquals("Redis Sentinel URL 'redis-sentinel://:***@/0#ids' names no sentinel: list them as "
                + "host:port,host:port", refusal("redis-sentinel://:SECRET123@/0#ids"));
        assertEquals("database 'zero' in Redis Sentinel URL 'redis-sentinel://s1:26379/zero#ids' is not a number",
                refusal("redis-sentinel://s1:26379/zero#ids"));
        assertEquals("unknown option [wait] in store URL 'redis-sentinel://s1:26379?wait=1#ids'; known: waitReplicas, "
                + "waitTimeout, allowRepeatedIdsOnPartition", refusal("redis-sentinel://s1:26379?wait=1#ids"));
    }

    @Test
    void anAsynchronousSentinelSetupIsRefusedUnlessTheUnsafeOptionNamesIt() {
        assertEquals("waitReplicas=0 in Redis Sentinel URL 'redis-sentinel://:***@s1:26379?waitReplicas=0#ids' lets a "
                + "partitioned primary keep renewing while a replica is promoted, which repeats ids; remove it (the "
                + "default waits for 1 replica) or add allowRepeatedIdsOnPartition=true to accept that",
                refusal("redis-sentinel://:SECRET123@s1:26379?waitReplicas=0#ids"));
        assertEquals("waitReplicas=0 in Redis Sentinel URL "
                + "'redis-sentinel://s1:26379?waitReplicas=0&allowRepeatedIdsOnPartition=false#ids' lets a partitioned "
                + "primary keep renewing while a replica is promoted, which repeats ids; remove it (the default waits "
                + "for 1 replica) or add allowRepeatedIdsOnPartition=true to accept that",
                refusal("redis-sentinel://s1:26379?waitReplicas=0&allowRepeatedIdsOnPartition=false#ids"));
        assertEquals("allowRepeatedIdsOnPartition 'yes' in store URL "
                + "'redis-sentinel://s1:26379?allowRepeatedIdsOnPartition=yes#ids' is not true or false",
                refusal("redis-sentinel://s1:26379?allowRepeatedIdsOnPartition=yes#ids"));
    }

    @Test
    void theUnsafeOptionWithWaitReplicasZeroPassesTheUrlCheck() {
        int closed = ServerProcess.freePort();
        // past the URL check the store tries the sentinels: unreachable here, which shows the URL was accepted
        assertThrows(LeaseStoreException.class, () -> LeaseStores.open("redis-sentinel://127.0.0.1:" + closed
                + "?allowRepeatedIdsOnPartition=true&waitReplicas=0#ids"));
    }

    @Test
    void noSentinelAnsweringIsAStoreErrorThatHidesThePassword() {
        int closed = ServerProcess.freePort();
        LeaseStoreException unreachable = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open("redis-sentinel://:SECRET123@127.0.0.1:" + closed + "#ids"));
        org.junit.jupiter.api.Assertions.assertTrue(unreachable.getMessage().startsWith(
                "cannot reach redis-sentinel://:***@127.0.0.1:" + closed + "#ids within 5000 ms"),
                unreachable.getMessage());
        org.junit.jupiter.api.Assertions.assertFalse(unreachable.getMessage().contains("SECRET123"),
                unreachable.getMessage());
    }
}
