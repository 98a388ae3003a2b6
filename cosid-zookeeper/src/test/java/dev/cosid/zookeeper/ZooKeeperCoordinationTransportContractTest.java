package dev.cosid.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.coordination.CoordinationTransport;
import dev.cosid.coordination.CoordinationTransports;
import dev.cosid.coordination.MemberId;
import dev.cosid.coordination.Role;
import dev.cosid.testkit.CoordinationTransportContract;
import dev.cosid.testkit.servers.ServerExtension;
import dev.cosid.testkit.servers.ZooKeeperServer;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The transport contract against a ZooKeeper server started by the test, opened by its store URL with a chroot. */
class ZooKeeperCoordinationTransportContractTest extends CoordinationTransportContract {

    @RegisterExtension
    static final ServerExtension<ZooKeeperServer> SERVER = new ServerExtension<>(ZooKeeperServer::started);

    @Override
    protected CoordinationTransport createTransport() {
        return CoordinationTransports.open(SERVER.server().url() + "/app");
    }

    @Test
    void aRoleWhoseNameZooKeeperWouldRefuseAsAZnodeNameIsStoredAndListed() {
        Role awkward = Role.of(role.name() + "/../ zookeeper \u00e9");
        transport.register(awkward, MemberId.of("m"), 1);
        assertTrue(transport.roles().containsAll(Set.of(awkward)), transport.roles().toString());
        assertEquals(1, transport.readRoleRecords(awkward).size());
    }

    @Test
    void aMalformedUrlIsRefusedBeforeAnyConnection() {
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
                () -> CoordinationTransports.open("zookeeper://127.0.0.1:99999/app"));
        assertEquals("port '99999' of host 127.0.0.1 in store URL 'zookeeper://127.0.0.1:99999/app' is not a number "
                + "from 1 to 65535", port.getMessage());
    }
}
