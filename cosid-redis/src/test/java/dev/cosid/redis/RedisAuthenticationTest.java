package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.lease.LeaseStore;
import dev.cosid.lease.LeaseStoreException;
import dev.cosid.lease.LeaseStores;
import dev.cosid.lease.NamespaceRecord;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A Redis server that asks for a password, and a store URL with the wrong one. */
class RedisAuthenticationTest {

    @RegisterExtension
    static final ServerExtension<RedisServer> SERVER = new ServerExtension<>(RedisServer::started);

    private static String address() {
        return SERVER.server().url().substring("redis://".length());
    }

    @BeforeAll
    static void requirePassword() {
        RedisClient client = RedisClient.create(SERVER.server().url());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().configSet("requirepass", "right-one");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aWrongPasswordIsReportedAsFailedAuthenticationNotAsUnreachable() {
        LeaseStoreException refused = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open("redis://:SECRET-wrong@" + address()));
        assertTrue(refused.getMessage().startsWith("authentication failed at redis://:***@" + address()
                + ": the server refused the user name or password (WRONGPASS"), refused.getMessage());
        assertFalse(refused.getMessage().contains("Unable to connect"), refused.getMessage());
        assertFalse(refused.getMessage().contains("SECRET-wrong"), refused.getMessage());
    }

    @Test
    void anUnreachableServerIsReportedWithWhatTheConnectionSaid() {
        int closed = dev.cosid.testkit.servers.ServerProcess.freePort();
        LeaseStoreException unreachable = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open("redis://:SECRET-wrong@127.0.0.1:" + closed));
        assertTrue(unreachable.getMessage().startsWith("cannot reach redis://:***@127.0.0.1:" + closed
                + " within 5000 ms: Unable to connect to "), unreachable.getMessage());
        assertTrue(unreachable.getMessage().contains("Connection refused"), unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("SECRET-wrong"), unreachable.getMessage());
    }

    @Test
    void noPasswordAtAllIsReportedAsFailedAuthenticationToo() {
        LeaseStoreException refused = assertThrows(LeaseStoreException.class,
                () -> LeaseStores.open(SERVER.server().url()).register("x", new NamespaceRecord(1, 0)));
        assertTrue(refused.getMessage().contains("NOAUTH"), refused.getMessage());
    }

    @Test
    void theRightPasswordWorks() {
        try (LeaseStore store = LeaseStores.open("redis://:right-one@" + address())) {
            assertEquals(new NamespaceRecord(4, 0), store.register("auth-ok", new NamespaceRecord(4, 0)));
        }
    }
}
