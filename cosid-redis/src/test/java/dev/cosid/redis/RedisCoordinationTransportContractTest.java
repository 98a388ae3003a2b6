package dev.cosid.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationException;
import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.RedisServer;
import dev.cosid.testkit.servers.ServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a Redis server started by the test, opened by its store URL. */
class RedisCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<RedisServer> SERVER = new ServerExtension<>(RedisServer::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(SERVER.server().url());
    }

    @Test
    void aMalformedUrlIsRefusedBeforeAnyConnectionAndAnUnreachableServerFailsWithoutItsPassword() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open("redis://:s3cret@127.0.0.1:notaport"));
        assertEquals("port 'notaport' of host 127.0.0.1 in Redis URL 'redis://:***@127.0.0.1:notaport' is not a "
                + "number from 1 to 65535", port.getMessage());
        CoordinationException unreachable = assertThrows(CoordinationException.class,
                () -> CoordinationTransports.open("redis://:s3cret@127.0.0.1:1"));
        assertTrue(unreachable.getMessage().startsWith("cannot reach redis://:***@127.0.0.1:1 within 5000 ms"),
                unreachable.getMessage());
        assertFalse(unreachable.getMessage().contains("s3cret"), unreachable.getMessage());
    }
}
